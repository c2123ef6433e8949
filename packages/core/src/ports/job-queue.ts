// The JobQueue port: background work the engine asks for (re-derivation
// after a deletion, later reflection and compaction). The embedded mode runs
// jobs in-process; server mode relays them to BullMQ (a later issue).
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

/** Keeps jobs in memory until drained: the embedded default until workers land. */
export class InMemoryJobQueue implements JobQueue {
  readonly pending = new Map<string, Job>();
  async enqueue(jobs: readonly Job[]): Promise<void> {
    for (const j of jobs) if (!this.pending.has(j.id)) this.pending.set(j.id, j);
  }
  drain(): Job[] {
    const all = [...this.pending.values()];
    this.pending.clear();
    return all;
  }
}
