// The WebAssembly candidate pass of the flat index (hamming-scan.wat says
// what it computes), compiled once per process and instantiated on each
// index's own memory.
import { HAMMING_SCAN_WASM } from './hamming-scan.wasm.ts';

/** Byte offsets into the memory the scan was instantiated on; see hamming-scan.wat. */
export type HammingScan = (
  codes: number,
  n: number,
  chunks: number,
  query: number,
  expires: number,
  validFrom: number,
  nowMs: number,
  dead: number,
  dist: number,
  hist: number,
) => void;

/** Bytes of one chunk of a code: the scan XORs and counts 128 bits at a time. */
export const CHUNK_BYTES = 16;
/** The most chunks a code may have (the scan sums per-byte counts in 8 bits). */
export const MAX_CHUNKS = 31;

let compiled: WebAssembly.Module | null = null;

/** The scan, working on `memory`. */
export function hammingScan(memory: WebAssembly.Memory): HammingScan {
  compiled ??= new WebAssembly.Module(Buffer.from(HAMMING_SCAN_WASM, 'base64'));
  const instance = new WebAssembly.Instance(compiled, { index: { memory } });
  return instance.exports.scan as HammingScan;
}
