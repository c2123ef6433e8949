// The JobQueue port: where the outbox relay puts the background work that
// writes and deletions recorded (reflection, compaction, re-derivation,
// expiry, re-embedding). Implementations: the in-process runner (embedded
// mode) and BullMQ (server mode, workers/).
export const JOB_NAMES = ['rederive', 'reflect', 'compact', 'expire', 'reembed'] as const;
export type JobName = (typeof JOB_NAMES)[number];

export interface Job {
  name: JobName;
  /** Idempotency key: enqueueing the same id twice runs the job once. */
  id: string;
  ownerId: string;
  payload: Record<string, unknown>;
}

export interface JobQueue {
  enqueue(jobs: readonly Job[]): Promise<void>;
}
