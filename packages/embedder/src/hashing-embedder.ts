// A deterministic fake Embedder for unit tests of code that only needs the port.

import type { Embedder } from '@keepgraph/core/ports';
import { l2Normalize } from './vector-math.ts';

/** FNV-1a, 32-bit: stable across runs and platforms, unlike any built-in hash. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * FOR PORT UNIT TESTS ONLY: not a semantic model. Hashes lower-cased word
 * tokens into `dimensions` signed buckets ("feature hashing") and normalises,
 * so texts sharing words are closer, identical texts get identical vectors,
 * and no model files are needed. Ignores `purpose`. Model id: `hashing-<dimensions>`.
 */
export function createHashingEmbedder(dimensions = 64): Embedder {
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw new Error(`dimensions must be a positive integer, got ${dimensions}`);
  }
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dimensions);
    const tokens = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [''];
    for (const token of tokens) {
      const h = fnv1a(token);
      const bucket = h % dimensions;
      // The bucket comes from the hash modulo, the sign from its top bit, so collisions partly cancel.
      v[bucket] = v[bucket]! + (h & 0x80000000 ? -1 : 1);
    }
    // A text whose tokens all cancel out would be a zero vector; keep it unit norm.
    if (v.every((x) => x === 0)) v[fnv1a(text) % dimensions] = 1;
    return l2Normalize(v);
  };
  return {
    modelId: `hashing-${dimensions}`,
    dimensions,
    embed: async (texts) => texts.map(embedOne),
  };
}
