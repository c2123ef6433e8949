// Derived memories as keys to their evidence: lending, standing in for true
// duplicates, and the derived memories that are keys only.
import { describe, expect, it } from 'vitest';
import { RECALL_RECIPES } from '../src/domain/recall-config.ts';
import { fuse, rankCandidates, type FusedEntry } from '../src/domain/rank.ts';
import { keysOnly, standInForDuplicates } from '../src/domain/derived-keys.ts';
import { carriesAllOf, wordOverlap } from '../src/domain/word-overlap.ts';
import { COMPACTION_TAG } from '../src/domain/derived-kinds.ts';
import type { Memory } from '../src/domain/record.ts';
import { RANKED_AT, mem } from './ranked-memories.ts';

const config = RECALL_RECIPES.default;
const byId = (...ms: Memory[]) => new Map(ms.map((m) => [m.id, m]));
const fusedOf = (ids: string[]): Map<string, FusedEntry> =>
  fuse({ vector: ids.map((id) => ({ id, score: 1 })) }, config);
const fillerIds = Array.from({ length: 9 }, (_, i) => `x${i}`);
const fillers = () => fillerIds.map((id) => mem(id));
// Ids the store no longer has: they push the fillers below 0.9 of the best hit.
const gaps = Array.from({ length: 10 }, (_, i) => `gone${i}`);

describe('lending through rankCandidates', () => {
  const now = new Date(RANKED_AT);
  const rank = (fused: Map<string, FusedEntry>, live: Map<string, Memory>, cfg = config) => {
    const via = new Map<string, string[]>();
    const out = rankCandidates(
      fused,
      live,
      now,
      { ...cfg, topK: 20 },
      {},
      { via, standingIn: new Set() },
    );
    return { out, via, ids: out.map((r) => r.memory.id) };
  };

  it('raises the sources the query matched best, up to maxSourcesPerDerived, saying via which', () => {
    // Four sources: more than a result may stand for, so d is a key only.
    const d = mem('d', { kind: 'summary', derivedFrom: ['s1', 's2', 's3', 's4'] });
    const live = byId(d, mem('s1'), mem('s2'), mem('s3'), mem('s4'), ...fillers());
    // d is the best hit; s3 and s1 were found, s3 better; s2 and s4 were not.
    const fused = fusedOf(['d', ...gaps, ...fillerIds, 's3', 'y', 's1']);
    const { out, via, ids } = rank(fused, live);
    expect(ids).not.toContain('d');
    expect(ids.slice(0, 3)).toEqual(['s3', 's1', 's2']);
    for (const r of out.slice(0, 3)) {
      expect(r.breakdown.raw.via).toBeGreaterThan(0);
      expect(r.score).toBeCloseTo(r.breakdown.raw.via! * config.sourceLend);
    }
    // The third slot goes to the first named source the query did not find.
    expect(ids).not.toContain('s4');
    expect([...via.entries()].sort()).toEqual([
      ['s1', ['d']],
      ['s2', ['d']],
      ['s3', ['d']],
    ]);
  });

  it('puts a derived memory right before the evidence it raised', () => {
    const d = mem('d', { kind: 'rule', derivedFrom: ['s'] });
    const live = byId(d, mem('s'), ...fillers());
    const { ids, out } = rank(fusedOf(['d', ...gaps, ...fillerIds, 's']), live);
    expect(ids.slice(0, 2)).toEqual(['d', 's']);
    expect(out[1]!.score).toBeCloseTo(out[0]!.score * config.sourceLend);
  });

  it('leaves a source that scores more on its own as it is, and lends nothing at 0', () => {
    const d = mem('d', { kind: 'rule', authority: 'agent_inferred', derivedFrom: ['s'] });
    const live = byId(d, mem('s'));
    const { via, ids } = rank(fusedOf(['s', 'd']), live);
    expect(ids).toEqual(['s', 'd']);
    expect(via.size).toBe(0);
    const off = rank(fusedOf(['d']), live, { ...config, sourceLend: 0 });
    expect(off.ids).toEqual(['d']);
    expect(off.via.size).toBe(0);
  });

  it('lends only to live sources, and a derived memory with too many sources is a key only', () => {
    const gone = mem('g', { kind: 'rule', derivedFrom: ['gone'] });
    expect(rank(fusedOf(['g']), byId(gone)).ids).toEqual(['g']);
    const wide = mem('w', { kind: 'summary', derivedFrom: ['a', 'b', 'c', 'e'] });
    const { ids, via } = rank(fusedOf(['w']), byId(wide, mem('a'), mem('b'), mem('c'), mem('e')));
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(via.get('a')).toEqual(['w']);
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
    expect(keysOnly(live.values(), new Set(), config)).toEqual(['wide']);
    expect(keysOnly(live.values(), new Set(['wide']), config)).toEqual([]);
  });
});

describe('duplicates', () => {
  it('carries all of a text when every content word and number is there', () => {
    expect(carriesAllOf('Alex books an aisle seat on flight 7', 'aisle seat, flight 7')).toBe(true);
    expect(carriesAllOf('Alex books an aisle seat on flight 7', 'aisle seat, flight 8')).toBe(
      false,
    );
    expect(carriesAllOf('Thanks!', 'thanks!')).toBe(true);
    expect(carriesAllOf('ok then', 'so what')).toBe(false);
  });

  it('measures the share of content words two texts share', () => {
    expect(wordOverlap('Alex likes green tea', 'green tea, Alex likes')).toBe(1);
    expect(wordOverlap('Alex likes green tea', 'Sam hates coffee')).toBe(0);
    expect(wordOverlap('aisle seat flight', 'aisle seat train')).toBeCloseTo(0.5);
  });
});
