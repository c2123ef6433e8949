// Set bits of a 32-bit word (SWAR). JavaScript has no popcount; this form
// measured fastest of the ones tried (a 16-bit lookup table was slower).

/** Number of 1 bits in the low 32 bits of `x`. */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
