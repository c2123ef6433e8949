// The hostile half of the HTTP fuzz: values and mutations no well-behaved
// client sends. Generated cases hold placeholders (a reference into a pool
// of things that exist when the case runs, a huge string, a deep nesting)
// that are turned into bytes only when the request is sent, so ten
// thousand cases cost little memory and a case can name a memory written
// by an earlier one.
import fc from 'fast-check';

/** What a reference may name: filled in from what the run has seen by the time the case is sent. */
export type PoolName = 'owner' | 'memory' | 'session' | 'kvKey' | 'apiKey';

/** The n-th member (modulo its size) of a pool, at send time; `wrap` makes it part of a bigger string. */
export class Ref {
  constructor(
    readonly pool: PoolName,
    readonly n: number,
    readonly wrap?: (member: string) => string,
  ) {}
}

/** `unit` repeated `count` times: a huge string without holding it in every case. */
export class Filler {
  constructor(
    readonly unit: string,
    readonly count: number,
  ) {}
}

/** A value nested `depth` levels deep (`[[[…]]]` or `{"a":{"a":…}}`), written as text at send time. */
export class Deep {
  constructor(
    readonly depth: number,
    readonly shape: 'array' | 'object',
  ) {}
}

/** A value sent as a JSON string of itself (an import line). */
export class AsJson {
  constructor(readonly value: unknown) {}
}

/** An array of `count` copies of `item` (a list over its limit), built at send time. */
export class Many {
  constructor(
    readonly item: unknown,
    readonly count: number,
  ) {}
}

/**
 * Strings at the edges of Unicode and of what parsers expect: NUL and other
 * controls, lone surrogates, byte-order marks, bidi overrides, zero-width
 * and combining characters, two spellings of one letter (NFC and NFD),
 * noncharacters, line separators, and text that means something to a
 * shell, a database, a template or a path.
 */
export const UNICODE_EDGES: readonly string[] = [
  '',
  ' ',
  '   ',
  '\t',
  '\u0000',
  'a\u0000b',
  'remember this\u0000 and the rest',
  '\ud800',
  '\udfff',
  'pair cut \ud83d',
  '\udc00 low first',
  '\ufeffwith a BOM',
  '\u202eevil reversed text',
  'zero\u200bwidth\u200djoiner',
  '👨‍👩‍👧‍👦 family emoji',
  'e\u0301le\u0300ve',
  'élève',
  '\u2126 ohm sign',
  '\ufb01 ligature',
  'İstanbul ı',
  '\uffff\ufffe',
  'line\u2028separator\u2029',
  '\u0085next line',
  '\u007f\u001b[31mred',
  '𝕏'.repeat(40),
  '%00',
  '%',
  '\\',
  '"',
  "'; DROP TABLE memories; --",
  '${process.env}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'null',
  '1e309',
  'NaN',
];

/**
 * Path segments that try to leave or confuse the route: dot segments,
 * escaped slashes, NUL, broken and overlong %-escapes, an escaped lone
 * surrogate, whitespace, query and fragment characters, the custom-method
 * separator, and ids past the length limits (in characters and in bytes).
 * Already escaped as they go on the wire.
 */
export const PATH_TRICKS: readonly string[] = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F%2E%2E%2Fkeys',
  '..%2F..%2Fkeys',
  '%2F',
  '%2Fetc%2Fpasswd',
  'a%2F..%2Fb',
  '%00',
  'a%00b',
  '%zz',
  '%',
  '%C0%AF',
  '%ED%A0%80',
  '%FF%FE',
  'a%20',
  '%20a',
  '%09',
  '%0D%0AX-Injected:%201',
  'a;b',
  ':',
  '::batch',
  '*',
  '~',
  'e%CC%81',
  '%C3%A9',
  '%EF%BB%BF',
  '%E2%80%AE',
  '%F0%9F%98%80',
  'CON',
  'x'.repeat(257),
  'x'.repeat(3100),
  '%C3%A9'.repeat(256),
  '%C3%A9'.repeat(257),
];

/**
 * Segments only a raw socket can send (an HTTP client refuses or escapes
 * them): a raw space, a raw NUL, raw UTF-8, a raw CR LF.
 */
export const RAW_PATH_TRICKS: readonly string[] = [
  'a b',
  'a\u0000b',
  'é',
  '\u00ff',
  'a\r\nX-Injected: 1',
  'a\tb',
];

/** Values of every JSON type, to put where another type belongs. */
export const WRONG_TYPES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -0,
  '',
  'x',
  '1',
  'true',
  [],
  [1, 'a', null],
  {},
  { a: 1 },
];

/** Content types other than the JSON a route takes (the last ones are JSON, oddly spelt). */
export const CONTENT_TYPES: readonly (string | null)[] = [
  null,
  '',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'application/octet-stream',
  'application/x-ndjson',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;',
  'application/vnd.api+json',
  'application/json, text/plain',
  'json',
  '*/*',
];

/** Ways to send a body that is not what its headers say (a raw socket sends them). */
export const WIRE_TRICKS = [
  /** Content-Length larger than the body, then the socket is closed. */
  'short-body',
  /** The JSON cut off somewhere, with a matching Content-Length. */
  'cut-json',
  /** Content-Length smaller than the body: the rest arrives as a second "request". */
  'long-body',
  /** Transfer-Encoding: chunked with a malformed chunk. */
  'bad-chunk',
  /** Both Content-Length and Transfer-Encoding (a smuggling attempt). */
  'cl-and-te',
  /** A Content-Length that is not a number, or two that differ. */
  'bad-length',
  /** Headers past the server's limit. */
  'huge-header',
  /** A path segment only a raw socket can send. */
  'raw-path',
  /** Garbage where the request line belongs. */
  'bad-request-line',
] as const;
export type WireTrick = (typeof WIRE_TRICKS)[number];

/** The kinds of hostile change a case may carry (or `valid`: none). */
export const VARIANTS = [
  'valid',
  'wrong-type',
  'extra-key',
  'missing-key',
  'unicode',
  'nul',
  'path-trick',
  'huge',
  'deep',
  'duplicate-keys',
  'proto-keys',
  'content-type',
  'wire',
  'non-object',
  'query-tricks',
  'method',
  'idempotency',
] as const;
export type Variant = (typeof VARIANTS)[number];

/** Every place in a JSON value, as the keys and indices leading to it (the root is `[]`). */
export function pathsOf(
  value: unknown,
  at: (string | number)[] = [],
  out: (string | number)[][] = [],
) {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (isPlainObject(value))
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

/** A JSON object (not a list, not a placeholder); fast-check's records have no prototype. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `value` with the thing at `path` replaced by `by` (a copy along the path). */
export function replaceAt(
  value: unknown,
  path: readonly (string | number)[],
  by: unknown,
): unknown {
  if (path.length === 0) return by;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = replaceAt(copy[head as number], rest, by);
    return copy;
  }
  if (isPlainObject(value))
    return { ...value, [head!]: replaceAt(value[head as string], rest, by) };
  return value;
}

/** `value` without the key at the end of `path` (objects only). */
export function removeAt(value: unknown, path: readonly (string | number)[]): unknown {
  if (path.length === 0) return value;
  if (path.length === 1) {
    if (!isPlainObject(value)) return value;
    const { [path[0] as string]: _gone, ...rest } = value;
    return rest;
  }
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = removeAt(copy[head as number], rest);
    return copy;
  }
  if (isPlainObject(value)) return { ...value, [head!]: removeAt(value[head as string], rest) };
  return value;
}

/** The n-th element of a non-empty list, modulo its length. */
export function nth<T>(list: readonly T[], n: number): T {
  return list[n % list.length]!;
}

/** Huge things to put in a body: strings over each limit, lists over theirs, many keys. */
export const HUGE = fc.constantFrom(
  // Over the default body limit (256 KiB): 413 before parsing.
  new Filler('x', 300_000),
  // Under the body limit, over the engine's 32,000 characters.
  new Filler('long text ', 4_000),
  // Over the policy's 8,000 characters, under the engine's limit.
  new Filler('words ', 1_500),
  // Astral characters: four UTF-8 bytes each, two UTF-16 units.
  new Filler('𝕏', 20_000),
  // Over every list limit of the API (10,000 ids, 1,000 memories...).
  new Many('x', 12_000),
  new Many({}, 1_001),
);

/** Depths for nested values: modest, past any sane limit, and past the call stack. */
export const DEPTHS = fc.constantFrom(65, 500, 5_000, 100_000);
