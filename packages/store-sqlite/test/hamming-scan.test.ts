// The flat index's WebAssembly candidate pass: the committed bytes are the
// compiled source, and its distances and histogram are a plain popcount's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GENERATED_PATH,
  compileHammingScan,
  generatedSource,
} from '../scripts/compile-hamming-scan.ts';
import { CHUNK_BYTES, hammingScan } from '../src/vector-index/hamming-scan.ts';

/** Set bits of a 32-bit word, the plain way: the reference the kernel is held to. */
function popcount(x: number): number {
  let n = 0;
  for (let b = 0; b < 32; b++) n += (x >>> b) & 1;
  return n;
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('hamming scan', () => {
  it('ships the bytes its source compiles to', async () => {
    const bytes = await compileHammingScan();
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(generatedSource(bytes));
  });

  for (const chunks of [1, 3, 31]) {
    it(`gives every live slot its popcount distance and counts them (${chunks} chunks)`, () => {
      const r = rng(chunks);
      const n = 777;
      const words = (chunks * CHUNK_BYTES) / 4;
      const dead = chunks * 128 + 1;
      const expiresAt = 0;
      const validFromAt = n * 8;
      const codesAt = validFromAt + n * 8;
      const queryAt = codesAt + n * chunks * CHUNK_BYTES;
      const distAt = queryAt + chunks * CHUNK_BYTES;
      const histAt = distAt + n * 2 + 2;
      const memory = new WebAssembly.Memory({
        initial: Math.ceil((histAt + (dead + 1) * 4) / 65_536),
      });
      const buf = memory.buffer;
      const codes = new Uint32Array(buf, codesAt, n * words);
      const query = new Uint32Array(buf, queryAt, words);
      const expires = new Float64Array(buf, expiresAt, n);
      const validFrom = new Float64Array(buf, validFromAt, n);
      for (let i = 0; i < codes.length; i++) codes[i] = Math.floor(r() * 2 ** 32);
      for (let j = 0; j < words; j++) query[j] = Math.floor(r() * 2 ** 32);
      const now = 1_000;
      for (let i = 0; i < n; i++) {
        // Some expired (also exactly at now), some not valid yet (also exactly at now).
        const u = r();
        expires[i] = u < 0.1 ? 500 : u < 0.15 ? now : 2_000;
        validFrom[i] = u > 0.9 ? 1_500 : u > 0.85 ? now : 0;
      }
      const hist = new Uint32Array(buf, histAt, dead + 1);
      hammingScan(memory)(
        codesAt,
        n,
        chunks,
        queryAt,
        expiresAt,
        validFromAt,
        now,
        dead,
        distAt,
        histAt,
      );

      const dist = new Uint16Array(buf, distAt, n);
      const wantHist = new Uint32Array(dead + 1);
      for (let i = 0; i < n; i++) {
        let want = dead;
        if (expires[i]! > now && validFrom[i]! <= now) {
          want = 0;
          for (let j = 0; j < words; j++) want += popcount(codes[i * words + j]! ^ query[j]!);
        }
        expect(dist[i], `slot ${i}`).toBe(want);
        wantHist[want]!++;
      }
      expect([...hist]).toEqual([...wantHist]);
      expect(wantHist[dead]).toBeGreaterThan(0);
    });
  }
});
