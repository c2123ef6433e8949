// Recall latency as the performance scripts time it: a few queries first so
// the model and the store's caches are warm, then every query on its own,
// one after another, so no two recalls share the machine.
import { percentile } from '../synthetic.ts';

/** Milliseconds per query, ascending. */
export async function timeRecalls(
  queries: readonly string[],
  recall: (query: string) => Promise<unknown>,
): Promise<number[]> {
  for (const q of queries.slice(0, 10)) await recall(q); // warm-up
  const lat: number[] = [];
  for (const q of queries) {
    const s = performance.now();
    await recall(q);
    lat.push(performance.now() - s);
  }
  return lat.sort((a, b) => a - b);
}

/** p50 / p95 / p99 of ascending latencies, to 0.01 ms. */
export function percentilesMs(sorted: readonly number[]): {
  p50: number;
  p95: number;
  p99: number;
} {
  return {
    p50: +percentile(sorted, 50).toFixed(2),
    p95: +percentile(sorted, 95).toFixed(2),
    p99: +percentile(sorted, 99).toFixed(2),
  };
}
