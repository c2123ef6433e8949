// Builds stored Memory records directly (no policy gate, no per-item
// embedding) so store benchmarks can load 100k+ memories in minutes. The
// recall under test still goes through the engine with the real model.
import type { Memory } from '@keepgraph/core';
import { memoryFixture } from '@keepgraph/core/testing';

export function benchMemory(
  ownerId: string,
  id: string,
  text: string,
  at: string,
  expiresAt: string,
): Memory {
  return memoryFixture(ownerId, {
    id,
    kind: 'episode',
    text,
    origin: { sessionId: `s-${id.slice(-3)}`, turn: id, observedAt: at, writtenBy: 'bench' },
    createdAt: at,
    expiresAt,
    embeddingModel: 'bench',
  });
}

/** A unit vector near `base`: distinct memories that keep the pool's semantic layout. */
export function jitter(base: Float32Array, r: () => number, amount = 0.08): Float32Array {
  const v = new Float32Array(base.length);
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    v[i] = base[i]! + (r() - 0.5) * amount;
    n += v[i]! * v[i]!;
  }
  n = Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}
