// Per-queue figures for operators, the same shape whether the jobs run on
// BullMQ (server mode) or in the in-process runner (embedded mode).
import type { JobName } from '../ports/job-queue.ts';

export interface QueueMetrics {
  name: JobName;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
  /** Processing time of recently completed jobs (null when none yet). */
  durationMs: { p50: number | null; p95: number | null; samples: number };
}

/** Anything that can report its queues: the BullMQ adapter, the in-process runner. */
export interface QueueMetricsSource {
  queueMetrics(): Promise<QueueMetrics[]>;
}

/** Nearest-rank percentile of an ascending list; null when empty. */
export function percentileOf(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
