// Derived memories as keys to their evidence: lending, standing in for true
// duplicates, and the derived memories that are keys only.
import { describe, expect, it } from 'vitest';
import { RECALL_RECIPES } from '../src/recall-config.ts';
import { fuse, type FusedEntry } from '../src/rank.ts';
import { keysOnly, lendScoreToSources, standInForDuplicates } from '../src/derived-keys.ts';
import { carriesAllOf, wordOverlap } from '../src/jobs/duplicates.ts';
import { COMPACTION_TAG } from '../src/jobs/compact.ts';
import type { Memory } from '../src/record.ts';

const at = '2026-06-01T00:00:00Z';
function mem(id: string, extra: Partial<Memory> = {}): Memory {
  return {
    id,
    ownerId: 'o',
    kind: 'episode',
    text: id,
    key: null,
    origin: { sessionId: 's', observedAt: at, writtenBy: 'w' },
    sourceOrigins: [],
    authority: 'user',
    createdAt: at,
    validFrom: at,
    validTo: null,
    expiresAt: '2027-01-01T00:00:00Z',
    sensitivity: 'low',
    tags: [],
    confidence: 1,
    contentHash: `h-${id}`,
    derivedFrom: [],
    supersedes: null,
    supersededBy: null,
    conflict: false,
    about: [],
    relations: [],
    embeddingModel: 'm',
    redactions: [],
    ...extra,
  };
}
const config = RECALL_RECIPES.default;
const byId = (...ms: Memory[]) => new Map(ms.map((m) => [m.id, m]));
const fusedOf = (ids: string[]): Map<string, FusedEntry> =>
  fuse({ vector: ids.map((id) => ({ id, score: 1 })) }, config);

describe('lendScoreToSources', () => {
  it('raises the sources the query matched best, up to maxSourcesPerDerived, and says via which', () => {
    const d = mem('d', { kind: 'fact', derivedFrom: ['s1', 's2', 's3', 's4'] });
    const live = byId(d, mem('s1'), mem('s2'), mem('s3'), mem('s4'));
    // d is the best hit; s3 and s1 were found, s3 better; s2 and s4 were not.
    const fused = fusedOf(['d', ...Array.from({ length: 9 }, (_, i) => `x${i}`), 's3', 'y', 's1']);
    const via = lendScoreToSources(fused, live, { sourceLend: 0.9, maxSourcesPerDerived: 3 });
    const lent = fused.get('d')!.fused * 0.9;
    expect(fused.get('s3')!.fused).toBeCloseTo(lent);
    expect(fused.get('s1')!.fused).toBeCloseTo(lent);
    // The third slot goes to the first named source the query did not find.
    expect(fused.get('s2')!.fused).toBeCloseTo(lent);
    expect(fused.has('s4')).toBe(false);
    expect(fused.get('s3')!.raw.via).toBe(fused.get('d')!.fused);
    expect([...via.entries()].sort()).toEqual([
      ['s1', ['d']],
      ['s2', ['d']],
      ['s3', ['d']],
    ]);
  });

  it('leaves a source that scores more on its own as it is, and lends nothing at 0', () => {
    const d = mem('d', { kind: 'fact', derivedFrom: ['s'] });
    const fused = fusedOf(['s', 'd']);
    const before = fused.get('s')!.fused;
    const via = lendScoreToSources(fused, byId(d, mem('s')), config);
    expect(fused.get('s')!.fused).toBe(before);
    expect(via.size).toBe(0);
    const off = fusedOf(['d']);
    expect(lendScoreToSources(off, byId(d, mem('s')), { ...config, sourceLend: 0 }).size).toBe(0);
    expect(off.has('s')).toBe(false);
  });

  it('lends only to live sources', () => {
    const d = mem('d', { kind: 'fact', derivedFrom: ['gone'] });
    const fused = fusedOf(['d']);
    expect(lendScoreToSources(fused, byId(d), config).size).toBe(0);
    expect(fused.has('gone')).toBe(false);
  });
});

describe('standInForDuplicates', () => {
  const summary = (derivedFrom: string[], text: string) =>
    mem('sum', { kind: 'summary', text, tags: [COMPACTION_TAG], derivedFrom });

  it('hides only the members whose every content word the summary carries, at their best rank', () => {
    const s = summary(['a', 'b'], 'Booked flight 3 for Alex: aisle seat, economy class.');
    const a = mem('a', { text: 'booked flight 3 for Alex, aisle seat' });
    const b = mem('b', { text: 'Booked flight 4 for Alex: aisle seat, economy class.' });
    const live = byId(s, a, b);
    const fused = fusedOf(['a', 'b']);
    const best = fused.get('a')!.fused;
    const r = standInForDuplicates(fused, live);
    expect([...r.hidden]).toEqual(['a']);
    expect([...r.standingIn]).toEqual(['sum']);
    expect(live.has('a')).toBe(false);
    expect(live.has('b')).toBe(true);
    expect(fused.get('sum')!.fused).toBe(best);
  });

  it('ignores derived memories that are not compaction summaries', () => {
    const rule = mem('r', { kind: 'rule', text: 'x y z', derivedFrom: ['a'] });
    const live = byId(rule, mem('a', { text: 'x y' }));
    expect(standInForDuplicates(fusedOf(['a']), live).hidden.size).toBe(0);
  });
});

describe('keysOnly', () => {
  it('names derived memories with more sources than a result may stand for, unless standing in', () => {
    const wide = mem('wide', { kind: 'summary', derivedFrom: ['a', 'b', 'c', 'd'] });
    const narrow = mem('narrow', { kind: 'fact', derivedFrom: ['a'] });
    const live = byId(wide, narrow, mem('a'));
    expect(keysOnly(live, new Set(), config)).toEqual(['wide']);
    expect(keysOnly(live, new Set(['wide']), config)).toEqual([]);
  });
});

describe('duplicates', () => {
  it('carries all of a text when every content word and number is there', () => {
    expect(carriesAllOf('Alex books an aisle seat on flight 7', 'aisle seat, flight 7')).toBe(true);
    expect(carriesAllOf('Alex books an aisle seat on flight 7', 'aisle seat, flight 8')).toBe(false);
    expect(carriesAllOf('Thanks!', 'thanks!')).toBe(true);
    expect(carriesAllOf('ok then', 'so what')).toBe(false);
  });

  it('measures the share of content words two texts share', () => {
    expect(wordOverlap('Alex likes green tea', 'green tea, Alex likes')).toBe(1);
    expect(wordOverlap('Alex likes green tea', 'Sam hates coffee')).toBe(0);
    expect(wordOverlap('aisle seat flight', 'aisle seat train')).toBeCloseTo(0.5);
  });
});
