// Response schemas of the HTTP API: operating answers the server makes
// itself: its queues, its health. (The audit log, KPIs, the read log and
// expiry runs are core's answers: AuditEventSchema, KpisSchema, ….)
import { z } from 'zod';
import { QueueMetricsSchema } from '@keepgraph/core/jobs';

export const QueuesOut = z.object({
  configured: z
    .boolean()
    .describe('False when this server was started without a job runner to report on'),
  queues: z.array(QueueMetricsSchema),
});

export const HealthOut = z.object({
  ok: z.literal(true),
  /** KeepGraph's version (semver). */
  version: z.string(),
  store: z.string(),
  /** The highest migration applied to the store: which data layout it holds. */
  schemaVersion: z.number().int(),
  model: z.string(),
});
