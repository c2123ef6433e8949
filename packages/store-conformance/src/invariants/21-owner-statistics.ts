// Full text ranks each owner with the owner's own statistics, on every
// store: other owners' writes move neither the order nor the scores of an
// owner's hits. (FTS5's and Lucene's scores take their statistics from the
// whole table or index, and did: locomo-dev beside 1,000 other owners lost
// 15-19 points of R@5 with full text alone, bench/README.)
import { expect, it } from 'vitest';
import { OWNER_STATISTICS_TEXTS, memoryFixture, otherOwnersTexts } from '@keepgraph/core/testing';
import { conformanceSuite, putMemories } from '../harness.ts';

const NOW = '2026-06-01T00:00:00.000Z';

export const ownerStatisticsSuite = conformanceSuite('owner statistics', (f) => {
  /** The owner's texts as memories with no vectors: full text alone ranks them. */
  const put = (ownerId: string, texts: readonly string[]) =>
    putMemories(
      f,
      texts.map((text) => memoryFixture(ownerId, { text })),
      () => null,
    );

  it('ranks an owner the same before and after 1,000 rows of other owners', async () => {
    const owner = f.owner();
    await put(owner, OWNER_STATISTICS_TEXTS);
    const ranking = async (query: string) => {
      const hits = await f.store.searchText(owner, query, { limit: 20, now: NOW });
      const texts = new Map(
        (
          await f.store.getByIds(
            owner,
            hits.map((h) => h.id),
          )
        ).map((m) => [m.id, m.text]),
      );
      return hits.map((h) => ({ text: texts.get(h.id), score: h.score }));
    };
    const queries = ['apple pear', 'pear', 'weather apple', 'the river walk', 'raining'];
    const before = await Promise.all(queries.map(ranking));
    const others = Array.from({ length: 20 }, () => f.owner());
    const texts = otherOwnersTexts(1000);
    for (const [i, other] of others.entries())
      await put(
        other,
        texts.filter((_, j) => j % others.length === i),
      );
    const after = await Promise.all(queries.map(ranking));
    queries.forEach((q, i) => {
      expect(
        after[i]!.map((h) => h.text),
        q,
      ).toEqual(before[i]!.map((h) => h.text));
      after[i]!.forEach((h, j) =>
        expect(h.score, `${q} #${j}`).toBeCloseTo(before[i]![j]!.score, 9),
      );
    });
    // The owner's IDF: one rare apple beats three common pears.
    expect(after[0]![0]!.text).toBe('an apple on the kitchen table');
    // Words stemmed: "raining" finds each "rain".
    expect(after[4]).toHaveLength(6);
  });

  it("looks for the query's words without English stop words, as every store does (core's queryTerms)", async () => {
    const owner = f.owner();
    await put(owner, ['What a day, what did you do?', 'Mel paints lakes at dawn']);
    const found = async (query: string) => {
      const hits = await f.store.searchText(owner, query, { limit: 10, now: NOW });
      return (
        await f.store.getByIds(
          owner,
          hits.map((h) => h.id),
        )
      ).map((m) => m.text);
    };
    // "What" and "did" would match the first on a store that searched
    // them (Lucene drops only its own 33 stop words).
    expect(await found('What did Mel paint?')).toEqual(['Mel paints lakes at dawn']);
    // A query of stop words only still searches them (queryTerms).
    expect(await found('what did you do')).toContain('What a day, what did you do?');
  });
});
