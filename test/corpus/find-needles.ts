// Which of many needles occur in some bytes, in one pass over them. The
// corpus tests look for thousands of values (every credential and personal
// item they sent) in a store's files and a server's log; one `includes` per
// needle reads the whole buffer thousands of times. Here each needle is
// indexed by a rolling hash (Rabin-Karp) of its first `width` bytes, width
// being the shortest needle's length: the scan hashes each window of the
// haystack once, and only a window whose hash some needle has is compared,
// needle by needle, with `Buffer.compare` (so a hash collision costs a
// comparison, never a wrong answer). Text is searched as UTF-8.

/** The hash is a polynomial in BASE modulo 2^32 (Math.imul and `| 0`). */
const BASE = 257;
/** A bit per hash value's low bits: most windows are let go without a Map lookup. */
const FILTER_BITS = 1 << 22;

export interface NeedleScan {
  /**
   * The next bytes of the current stream (a file read in pieces, say): a
   * needle split across two pushes is found.
   */
  push(chunk: Buffer | string): this;
  /** The current stream is over: no match spans from it into the next one. */
  end(): this;
  /** The needles found so far (as given). */
  readonly found: ReadonlySet<string>;
}

/** A scanner for `needles` (at least one, none empty); feed it streams with push and end. */
export function needleScanner(needles: Iterable<string>): NeedleScan {
  const list = [...new Set(needles)].map((text) => ({ text, bytes: Buffer.from(text, 'utf8') }));
  if (list.length === 0) throw new Error('needleScanner: no needles');
  if (list.some((n) => n.bytes.length === 0)) throw new Error('needleScanner: an empty needle');
  const width = Math.min(...list.map((n) => n.bytes.length));
  const longest = Math.max(...list.map((n) => n.bytes.length));
  // BASE^(width-1): the weight of the byte leaving the window.
  let lead = 1;
  for (let i = 1; i < width; i++) lead = Math.imul(lead, BASE);

  const hashOf = (b: Buffer) => {
    let h = 0;
    for (let i = 0; i < width; i++) h = (Math.imul(h, BASE) + b[i]!) | 0;
    return h;
  };
  const buckets = new Map<number, (typeof list)[number][]>();
  const filter = new Uint8Array(FILTER_BITS / 8);
  for (const n of list) {
    const h = hashOf(n.bytes);
    const bucket = buckets.get(h);
    if (bucket) bucket.push(n);
    else buckets.set(h, [n]);
    const bit = h & (FILTER_BITS - 1);
    filter[bit >>> 3]! |= 1 << (bit & 7);
  }

  const found = new Set<string>();
  /** Every match that starts in `hay` (and ends in it). */
  const scan = (hay: Buffer) => {
    if (hay.length < width) return;
    let h = hashOf(hay);
    for (let i = 0; ; i++) {
      const bit = h & (FILTER_BITS - 1);
      if (filter[bit >>> 3]! & (1 << (bit & 7))) {
        for (const n of buckets.get(h) ?? []) {
          const end = i + n.bytes.length;
          if (end <= hay.length && hay.compare(n.bytes, 0, n.bytes.length, i, end) === 0)
            found.add(n.text);
        }
      }
      if (i + width >= hay.length) return;
      h = (Math.imul((h - Math.imul(hay[i]!, lead)) | 0, BASE) + hay[i + width]!) | 0;
    }
  };

  // The last longest-1 bytes of the stream so far: a match that ends in
  // the next chunk may start there.
  let carry: Buffer = Buffer.alloc(0);
  const scanner: NeedleScan = {
    found,
    push(chunk) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      const keep = longest - 1;
      // The seam: the carry and the head of the chunk, so the chunk itself
      // need not be copied.
      if (carry.length > 0) scan(Buffer.concat([carry, bytes.subarray(0, keep)]));
      scan(bytes);
      // A copy: a view would pin the whole chunk.
      const tail = bytes.length >= keep ? bytes : Buffer.concat([carry, bytes]);
      carry = Buffer.from(tail.subarray(Math.max(0, tail.length - keep)));
      return scanner;
    },
    end() {
      carry = Buffer.alloc(0);
      return scanner;
    },
  };
  return scanner;
}

/** The needles found in any of `streams`, each searched on its own, in one pass over each. */
export function findNeedles(
  needles: Iterable<string>,
  streams: Iterable<Buffer | string>,
): ReadonlySet<string> {
  const scanner = needleScanner(needles);
  for (const s of streams) scanner.push(s).end();
  return scanner.found;
}
