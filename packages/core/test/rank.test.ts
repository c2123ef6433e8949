// Fusion and rescoring: pure functions over candidate lists.
import { describe, expect, it } from 'vitest';
import { RECALL_RECIPES } from '../src/domain/recall-config.ts';
import { entityCandidates, fuse, rankCandidates, recencyFactor } from '../src/domain/rank.ts';
import { RANKED_AT, mem } from './ranked-memories.ts';

const now = new Date(RANKED_AT);
const config = RECALL_RECIPES.default;

describe('rank', () => {
  it('fuses by reciprocal rank: agreement between retrievers wins', () => {
    const f = fuse(
      {
        vector: [
          { id: 'a', score: 0.9 },
          { id: 'b', score: 0.8 },
        ],
        text: [
          { id: 'b', score: 5 },
          { id: 'c', score: 4 },
        ],
      },
      config,
    );
    const order = [...f.entries()].sort((x, y) => y[1].fused - x[1].fused).map(([id]) => id);
    expect(order[0]).toBe('b');
    expect(f.get('b')!.ranks).toEqual({ vector: 2, text: 1 });
  });

  it('takes part of the vector and text share from scores: a clear first beats a middling pair', () => {
    // Full lists (config.candidates long), so the whole share applies.
    const vector = [
      { id: 'clear', score: 0.9 },
      ...Array.from({ length: 8 }, (_, i) => ({ id: `v${i}`, score: 0.62 - i * 0.01 })),
      { id: 'both', score: 0.549 },
      ...Array.from({ length: 40 }, (_, i) => ({ id: `vt${i}`, score: 0.54 - i * 0.001 })),
    ];
    const text = [
      ...Array.from({ length: 9 }, (_, i) => ({ id: `t${i}`, score: 9 - i * 0.6 })),
      { id: 'both', score: 3 },
      ...Array.from({ length: 40 }, (_, i) => ({ id: `tt${i}`, score: 2.9 - i * 0.04 })),
    ];
    expect(vector).toHaveLength(config.candidates);
    expect(text).toHaveLength(config.candidates);
    const order = (share: number) =>
      [...fuse({ vector, text }, { ...config, scoreShare: share }).entries()]
        .sort((x, y) => y[1].fused - x[1].fused)
        .map(([id]) => id);
    // By ranks alone, being found twice at rank 10 beats being first once.
    expect(order(0).indexOf('both')).toBeLessThan(order(0).indexOf('clear'));
    expect(order(0.5).indexOf('clear')).toBeLessThan(order(0.5).indexOf('both'));
    expect(order(0.5)[0]).toBe('clear');
  });

  it('gives a short list a smaller score share: the last of a few matches is not a poor one', () => {
    const vector = [
      { id: 'a', score: 0.72 },
      { id: 'b', score: 0.63 },
      { id: 'c', score: 0.61 },
    ];
    const f = fuse({ vector }, config);
    const share = (config.scoreShare * 3) / config.candidates;
    expect(f.get('c')!.fused).toBeCloseTo((1 - share) / (config.rrfK + 3), 12);
    // By ranks alone the last of three keeps most of its weight; full min-max would halve it.
    expect(f.get('c')!.fused / f.get('a')!.fused).toBeGreaterThan(0.8);
  });

  it('reads a score by its place in its list, so the store scale does not matter', () => {
    // A full list, so the whole share (and so the scale) is in play.
    const cos = Array.from({ length: config.candidates }, (_, i) => 0.82 - i * 0.01);
    const lists = (f: (c: number) => number) => ({
      vector: cos.map((c, i) => ({ id: `m${i}`, score: f(c) })),
      text: [{ id: 'm30', score: 2 }],
    });
    const fused = (f: (c: number) => number) =>
      [...fuse(lists(f), config).values()].map((e) => e.fused);
    // Neo4j's vector index answers (1 + cos) / 2 where SQLite answers cos.
    const neo = fused((c) => (1 + c) / 2);
    fused((c) => c).forEach((v, i) => expect(neo[i]).toBeCloseTo(v, 12));
    // The first of a list gets what rank 1 gets, whatever the share.
    expect(
      fuse(
        lists((c) => c),
        config,
      ).get('m0')!.fused,
    ).toBeCloseTo(config.weights.vector / (config.rrfK + 1), 12);
  });

  it('scales by authority and confidence, and normalises to 0..1', () => {
    const f = fuse(
      {
        vector: [
          { id: 'a', score: 1 },
          { id: 'b', score: 1 },
        ],
      },
      config,
    );
    const ms = new Map([
      ['a', mem('a', { authority: 'third_party' })],
      ['b', mem('b', { confidence: 1 })],
    ]);
    const r = rankCandidates(f, ms, now, config);
    expect(r[0]!.memory.id).toBe('b');
    for (const x of r) {
      expect(x.score).toBeGreaterThan(0);
      expect(x.score).toBeLessThanOrEqual(1);
    }
  });

  it('drops exact duplicates and what misses minScore, and keeps the sources of a derived candidate', () => {
    const f = fuse(
      { vector: ['s1', 'd', 's2', 'dup1', 'dup2'].map((id) => ({ id, score: 1 })) },
      config,
    );
    const ms = new Map([
      ['s1', mem('s1')],
      ['s2', mem('s2')],
      ['d', mem('d', { derivedFrom: ['s1', 's2'], authority: 'agent_inferred' })],
      ['dup1', mem('dup1', { contentHash: 'same' })],
      ['dup2', mem('dup2', { contentHash: 'same' })],
    ]);
    expect(
      rankCandidates(f, ms, now, config)
        .map((r) => r.memory.id)
        .sort(),
    ).toEqual(['d', 'dup1', 's1', 's2']);
    expect(rankCandidates(f, ms, now, { ...config, minScore: 0.99 })).toEqual([]);
  });

  it('orders equal scores by content hash, whatever the ids', () => {
    const f = fuse({ vector: [{ id: 'z', score: 1 }], text: [{ id: 'a', score: 1 }] }, config);
    const ms = new Map([
      ['z', mem('z', { contentHash: 'h1' })],
      ['a', mem('a', { contentHash: 'h2' })],
    ]);
    expect(rankCandidates(f, ms, now, config).map((r) => r.memory.id)).toEqual(['z', 'a']);
  });

  it('ignores candidates the store filtered out', () => {
    const f = fuse({ vector: [{ id: 'gone', score: 1 }] }, config);
    expect(rankCandidates(f, new Map(), now, config)).toEqual([]);
  });

  it('decays with age towards 1 - recencyWeight', () => {
    expect(recencyFactor(now.toISOString(), now, config)).toBe(1);
    const old = recencyFactor('2000-01-01T00:00:00Z', now, config);
    expect(old).toBeCloseTo(1 - config.recencyWeight, 5);
  });

  it('offers 1- to 3-word phrases as entity candidates', () => {
    expect(entityCandidates('Pitch a new fintech client?')).toEqual(
      expect.arrayContaining(['fintech', 'fintech client', 'new fintech client']),
    );
  });
});

describe('query-named time and speaker', () => {
  // Ranks alone: two candidates a rank apart, so a boost is what orders them.
  const config = { ...RECALL_RECIPES.default, scoreShare: 0 };
  const fused = fuse(
    {
      vector: [
        { id: 'a', score: 0.9 },
        { id: 'b', score: 0.8 },
      ],
    },
    config,
  );
  const a = mem('a', {
    origin: { sessionId: 's', speaker: 'Sam', observedAt: '2023-01-05T10:00:00Z', writtenBy: 'w' },
  });
  const b = mem('b', {
    origin: {
      sessionId: 's',
      speaker: 'Mel Jones',
      observedAt: '2023-06-05T10:00:00Z',
      writtenBy: 'w',
    },
  });
  const memories = new Map([a, b].map((m) => [m.id, m]));

  it('favours a memory whose speaker the query names, all of the name', () => {
    const words = new Set(['what', 'does', 'mel', 'jones', 'like']);
    const r = rankCandidates(fused, memories, now, config, { words });
    expect(r.map((x) => x.memory.id)).toEqual(['b', 'a']);
    expect(r[0]!.breakdown.speaker).toBe(1 + config.speakerMatchBoost);
    const partial = rankCandidates(fused, memories, now, config, { words: new Set(['mel']) });
    expect(partial.map((x) => x.breakdown.speaker)).toEqual([1, 1]);
  });

  it('favours a memory observed in a window the query names', () => {
    const timeWindows = [
      {
        start: new Date('2023-06-01'),
        end: new Date('2023-07-01'),
        anyYear: false,
        text: 'in June 2023',
      },
    ];
    const r = rankCandidates(fused, memories, now, config, { timeWindows });
    expect(r.map((x) => [x.memory.id, x.breakdown.time])).toEqual([
      ['b', 1 + config.timeMatchBoost],
      ['a', 1],
    ]);
    expect(r[0]!.score).toBeLessThanOrEqual(1);
  });
});
