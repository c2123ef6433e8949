// Scoring per the spec: recall@k and hit@k at k in {1, 5, 10, 25} for each
// question with non-empty evidence, averaged per category and overall, plus
// latency percentiles. Pure functions over the dataset and the result lines,
// so the arithmetic is testable without a model.
import type { Dataset } from './dataset.ts';
import type { ResultLine } from './results.ts';

/** The cut-offs the spec reports. */
export const KS = [1, 5, 10, 25] as const;
/** One of the reported cut-offs. */
export type K = (typeof KS)[number];

/** Means over a group of questions, as percentages with one decimal. */
export interface GroupScores {
  /** Questions with non-empty evidence in this group. */
  questions: number;
  recall: Record<K, number>;
  hit: Record<K, number>;
}

/** What the benchmark reports; `--json` prints this object. */
export interface RecallMetrics {
  overall: GroupScores;
  byCategory: Record<string, GroupScores>;
  /** Questions skipped because their evidence is empty (nothing to score). */
  unscoredQuestions: number;
  latencyMs: { p50: number; p95: number };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Nearest-rank percentile of unsorted values (0 for none). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

class Sums {
  questions = 0;
  recall: Record<K, number> = { 1: 0, 5: 0, 10: 0, 25: 0 };
  hit: Record<K, number> = { 1: 0, 5: 0, 10: 0, 25: 0 };

  add(evidence: ReadonlySet<string>, turnIds: readonly string[]): void {
    this.questions++;
    for (const k of KS) {
      const found = turnIds.slice(0, k).filter((t) => evidence.has(t)).length;
      this.recall[k] += found / evidence.size;
      this.hit[k] += found > 0 ? 1 : 0;
    }
  }

  mean(): GroupScores {
    const pct = (s: Record<K, number>) =>
      Object.fromEntries(
        KS.map((k) => [k, this.questions ? round1((100 * s[k]) / this.questions) : 0]),
      ) as Record<K, number>;
    return { questions: this.questions, recall: pct(this.recall), hit: pct(this.hit) };
  }
}

/**
 * Score result lines against a dataset. A question without a result line
 * counts as answered with no ids (the checker reports it separately).
 * Latency percentiles cover every result line.
 */
export function scoreResults(dataset: Dataset, results: readonly ResultLine[]): RecallMetrics {
  const byId = new Map(results.map((r) => [r.questionId, r]));
  const overall = new Sums();
  const cats = new Map<string, Sums>();
  let unscored = 0;
  for (const c of dataset.conversations) {
    for (const q of c.questions) {
      const evidence = new Set(q.evidence);
      if (evidence.size === 0) {
        unscored++;
        continue;
      }
      const turnIds = byId.get(q.id)?.turnIds ?? [];
      overall.add(evidence, turnIds);
      let s = cats.get(q.category);
      if (!s) cats.set(q.category, (s = new Sums()));
      s.add(evidence, turnIds);
    }
  }
  const lat = results.map((r) => r.latencyMs);
  return {
    overall: overall.mean(),
    byCategory: Object.fromEntries(
      [...cats.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, s]) => [k, s.mean()]),
    ),
    unscoredQuestions: unscored,
    latencyMs: { p50: round1(percentile(lat, 50)), p95: round1(percentile(lat, 95)) },
  };
}

/** A fixed-width table: one row per category, then overall. */
export function formatMetricsTable(m: RecallMetrics): string[] {
  const head = ['category', 'n', ...KS.map((k) => `R@${k}`), ...KS.map((k) => `H@${k}`)];
  const row = (name: string, g: GroupScores) => [
    name,
    String(g.questions),
    ...KS.map((k) => g.recall[k].toFixed(1)),
    ...KS.map((k) => g.hit[k].toFixed(1)),
  ];
  const rows = [
    head,
    ...Object.entries(m.byCategory).map(([c, g]) => row(c, g)),
    row('overall', m.overall),
  ];
  const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '),
  );
}

/**
 * Two runs over the same questions, per category then overall: recall@k of
 * each and the difference (second minus first), for k = 5, 10 and 25.
 */
export function formatSideBySide(
  a: RecallMetrics,
  b: RecallMetrics,
  ks: readonly K[] = [5, 10, 25],
): string[] {
  const head = ['category', 'n', ...ks.flatMap((k) => [`raw R@${k}`, `cons R@${k}`, 'Δ'])];
  const cell = (x: number) => x.toFixed(1);
  const delta = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(1);
  const row = (name: string, ga: GroupScores, gb: GroupScores) => [
    name,
    String(gb.questions),
    ...ks.flatMap((k) => [
      cell(ga.recall[k]),
      cell(gb.recall[k]),
      delta(round1(gb.recall[k] - ga.recall[k])),
    ]),
  ];
  const rows = [
    head,
    ...Object.entries(b.byCategory).map(([c, g]) => row(c, a.byCategory[c] ?? g, g)),
    row('overall', a.overall, b.overall),
  ];
  const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '),
  );
}
