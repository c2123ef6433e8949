// unhomoglyph ships no types: one function, a string to its Unicode
// confusables skeleton (confusables.txt, UTS #39).
declare module 'unhomoglyph' {
  export default function unhomoglyph(text: string): string;
}
