// The form of a text the instruction-phrase check reads: an injected
// "ignore previous instructions" must not slip past the patterns spelled with
// look-alike letters (Cyrillic о for Latin o), full-width or styled forms
// (ｉｇｎｏｒｅ, 𝐢𝐠𝐧𝐨𝐫𝐞), or zero-width characters between the letters.
// Only the check reads this form; the text is stored as it was written.
import unhomoglyph from 'unhomoglyph';

// Format characters (zero-width space and joiners, BOM, bidi controls, soft
// hyphen: \p{Cf}), the combining grapheme joiner and variation selectors:
// invisible, so they can split a word without showing.
const INVISIBLE = /[\p{Cf}\u034F\u180B-\u180F\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]/gu;

const NON_ASCII = /[\u0080-\u{10FFFF}]/gu;
const isAscii = (s: string) => !/[\u0080-\u{10FFFF}]/u.test(s);

/**
 * NFKC (full-width and styled letters to plain ones), then invisible
 * characters dropped, then each remaining non-ASCII character replaced by its
 * confusables skeleton when that is ASCII. ASCII itself is left alone: the
 * skeleton would also turn "1" and "I" into "l", which the patterns do not
 * expect.
 */
export function instructionCheckForm(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(NON_ASCII, (ch) => {
      const skeleton = unhomoglyph(ch);
      return isAscii(skeleton) ? skeleton : ch;
    });
}
