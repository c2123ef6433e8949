// Full-text search of recall: BM25 over one owner's live memories, with
// the owner's own statistics. FTS5's bm25() takes a term's IDF from the
// whole table's row count and a row's length against the whole table's
// average; in a store of many owners that made an owner's ranking depend on
// what the others had written (locomo-dev beside 1,000 other owners: 15
// points of R@5 lost with full text alone, bench/README). When the owner is
// not the whole table, each query term is ranked alone, FTS5's one-term
// score is taken back to the term's count in the row (knowing the row's
// length and the table's statistics), and the row is scored again with the
// owner's row count and average length: the score FTS5 would give were the
// owner alone in the table.
import { toMs } from '@keepgraph/core/ports';
import type { ScoredId, SearchOptions } from '@keepgraph/core/ports';
import { toFtsPhrases } from './fts-query.ts';
import {
  bm25Idf,
  lengthFactor,
  termFrequency,
  termWeight,
  textStatistics,
  type TextStatistics,
} from './full-text-statistics.ts';
import { rowTokens } from './fts-row-tokens.ts';
import type { StoreContext } from './store-context.ts';

/**
 * Full text ranks the newest this many matches of a query, not all of them.
 * Measured at 100k memories in one owner (bench/README): a query's words
 * match ~8-12k rows there, and ranking all of them took 80 / 180 ms p50 /
 * p95; the newest 1,000 took about 17 / 20 ms with the owner-key term of
 * migration 0004, and take about 4-6 / 8-9 ms with owner-tagged terms (0014;
 * the rest is FTS5 counting each term's rows for its IDF, whatever the
 * window). Owners whose query matches fewer rows are ranked whole, as
 * before. Older memories stay reachable by meaning and by entity.
 */
export const FULL_TEXT_WINDOW = 1000;

/** BM25 hits for the words of `query`; an empty or punctuation-only query finds nothing. */
export function searchText(
  ctx: StoreContext,
  ownerId: string,
  query: string,
  opts: SearchOptions,
): ScoredId[] {
  const limit = opts.limit;
  const nowMs = toMs(opts.now, 'now');
  const phrases = toFtsPhrases(query, ownerId);
  if (phrases.length === 0 || limit === 0) return [];
  const match = phrases.join(' OR ');
  // One read transaction: the window, the statistics and the scores all
  // come from one snapshot, even while another process writes.
  return ctx.db.transaction((): ScoredId[] => {
    // The rowid of the window's oldest match: FTS5 walks matches newest first
    // without ranking them, so finding it costs about 1 ms at 100k.
    const edge = ctx.st
      .sql(
        'SELECT rowid FROM memory_fts_terms WHERE memory_fts_terms MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?',
      )
      .pluck()
      .get(match, FULL_TEXT_WINDOW - 1) as number | undefined;
    const minRid = edge ?? 0;
    const stats = textStatistics(ctx.st, ownerId);
    if (stats.owner.rows === stats.table.rows) {
      // The table is the owner's: FTS5's statistics are the owner's own.
      return ctx.st.file('search-text').all({ ownerId, match, nowMs, limit, minRid }) as ScoredId[];
    }
    const scores = ownerScores(ctx, phrases, minRid, edge === undefined, stats);
    return liveFirst(ctx, ownerId, scores, limit, nowMs);
  })();
}

/**
 * Each window row's BM25 with the owner's statistics, by rowid. A term's
 * row count n is the number of its hits when the window holds every match
 * (`whole`), else counted (its doclist walked, as FTS5 does for its IDF).
 * A row's length comes from FTS5's docsize record, read with its score.
 */
function ownerScores(
  ctx: StoreContext,
  phrases: readonly string[],
  minRid: number,
  whole: boolean,
  stats: TextStatistics,
): Map<number, number> {
  const ranked = ctx.st
    .sql(
      `SELECT f.rowid, -bm25(memory_fts_terms), d.sz
         FROM memory_fts_terms f JOIN memory_fts_terms_docsize d ON d.id = f.rowid
        WHERE memory_fts_terms MATCH ? AND f.rowid >= ?`,
    )
    .raw();
  const count = ctx.st
    .sql('SELECT count(*) FROM memory_fts_terms WHERE memory_fts_terms MATCH ?')
    .pluck();
  const tableAverage = stats.table.tokens / stats.table.rows;
  const ownerAverage = stats.owner.tokens / stats.owner.rows;
  const scores = new Map<number, number>();
  for (const phrase of phrases) {
    const hits = ranked.all(phrase, minRid) as [rid: number, score: number, size: Buffer][];
    if (hits.length === 0) continue;
    const n = whole ? hits.length : (count.get(phrase) as number);
    const tableIdf = bm25Idf(stats.table.rows, n);
    const ownerIdf = bm25Idf(stats.owner.rows, n);
    for (const [rid, score, sz] of hits) {
      const length = rowTokens(sz);
      const tf = termFrequency(score / tableIdf, lengthFactor(length, tableAverage));
      const own = ownerIdf * termWeight(tf, lengthFactor(length, ownerAverage));
      scores.set(rid, (scores.get(rid) ?? 0) + own);
    }
  }
  return scores;
}

/**
 * The `limit` best-scored rows that are the owner's live memories, best
 * first, ties newest written first (as search-text orders them). Rows are
 * checked a slice at a time, best first, so a query whose best rows are
 * live reads only those.
 */
function liveFirst(
  ctx: StoreContext,
  ownerId: string,
  scores: ReadonlyMap<number, number>,
  limit: number,
  nowMs: number,
): ScoredId[] {
  const order = [...scores.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
  const live = ctx.st.file('live-by-rid');
  const slice = Math.max(2 * limit, 64);
  const out: ScoredId[] = [];
  for (let i = 0; i < order.length && out.length < limit; i += slice) {
    const part = order.slice(i, i + slice);
    const ids = new Map(
      (
        live.all({ ownerId, rids: JSON.stringify(part.map(([rid]) => rid)), nowMs }) as {
          id: string;
          rid: number;
        }[]
      ).map((r) => [r.rid, r.id]),
    );
    for (const [rid, score] of part) {
      const id = ids.get(rid);
      if (id !== undefined && out.length < limit) out.push({ id, score });
    }
  }
  return out;
}
