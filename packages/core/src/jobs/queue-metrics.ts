// Per-queue figures for operators, the same shape whether the jobs run on
// BullMQ (server mode) or in the in-process runner (embedded mode).
import { z } from 'zod';
import { JOB_NAMES } from '../ports/job-queue.ts';

const count = z.number().int().nonnegative();

export const QueueMetricsSchema = z.object({
  name: z.enum(JOB_NAMES),
  waiting: count,
  active: count,
  delayed: count,
  failed: count,
  completed: count,
  /** Processing time of recently completed jobs (null when none yet). */
  durationMs: z
    .object({ p50: z.number().nullable(), p95: z.number().nullable(), samples: count })
    .describe('Processing time of recently completed jobs (null when none yet)'),
});
export type QueueMetrics = z.output<typeof QueueMetricsSchema>;

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
