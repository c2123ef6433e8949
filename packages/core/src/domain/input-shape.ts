// The shape a caller's value must have before anything walks it: no string
// holding a lone surrogate, and no lists or objects nested deeper than
// MAX_INPUT_DEPTH. JSON.parse takes any depth (a 256 KiB body nests
// 100,000 lists), while zod's parse, the idempotency fingerprint and the
// surrogate check itself recurse: past the call stack, such a body was a
// 500. This walk keeps its own stack, so it is safe at any depth.

/** The deepest nesting of lists and objects taken from a caller (no input of the API needs more than a handful). */
export const MAX_INPUT_DEPTH = 64;

/** What is wrong with a value, and where (a dotted path, `(root)` for the value itself). */
export interface InputProblem {
  kind: 'lone_surrogate' | 'too_deep';
  path: string;
  message: string;
}

// In a u-mode regex a surrogate pair is one code point: only lone halves are Cs.
const LONE_SURROGATE = /\p{Cs}/u;

const where = (path: readonly (string | number)[]) => path.join('.') || '(root)';

/**
 * The first problem of `value` in document order, or null. A string with a
 * lone surrogate cannot be stored as it is: UTF-8 turns the surrogate into
 * U+FFFD, so the stored text would not be the text its content hash was
 * computed from.
 */
export function inputProblem(value: unknown): InputProblem | null {
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v))
        return {
          kind: 'lone_surrogate',
          path: where(path),
          message: 'must be well-formed Unicode (it holds a lone surrogate)',
        };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (path.length >= MAX_INPUT_DEPTH)
      return {
        kind: 'too_deep',
        path: where(path),
        message: `nested deeper than ${MAX_INPUT_DEPTH} levels of lists and objects`,
      };
    const entries: [string | number, unknown][] = Array.isArray(v)
      ? v.map((x, i) => [i, x])
      : Object.entries(v);
    // Pushed last to first, so the first entry is looked at first.
    for (let i = entries.length - 1; i >= 0; i--)
      stack.push([entries[i]![1], [...path, entries[i]![0]]]);
  }
  return null;
}
