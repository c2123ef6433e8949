// The outbox relay: moves jobs the store recorded with its writes to the job
// queue, then removes them from the outbox. Enqueueing is idempotent by job
// id, so a relay that dies between the two steps (or two relays racing)
// enqueues a job twice and it still runs once.
import type { JobQueue } from '../ports/job-queue.ts';
import type { MemoryStore } from '../ports/memory-store.ts';

/**
 * Relay everything pending now; returns how many jobs moved. Throws if the
 * queue is down. With `ack: false` the entries stay in the outbox (the
 * queue removes them when a job is done: the in-process runner) and one
 * round is made.
 */
export async function relayOutbox(
  store: MemoryStore,
  queue: JobQueue,
  opts: { batch?: number; ack?: boolean } = {},
): Promise<number> {
  const batch = opts.batch ?? 500;
  let moved = 0;
  for (;;) {
    const pending = await store.outboxPending(batch);
    if (pending.length === 0) return moved;
    await queue.enqueue(pending.map((p) => p.job));
    moved += pending.length;
    if (opts.ack === false) return moved;
    await store.outboxAck(pending.map((p) => p.job.id));
    if (pending.length < batch) return moved;
  }
}

export interface Relay {
  /** Relay now (and wait); what the timer calls. */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Relay on a timer. A failed round (queue unreachable) is reported and
 * retried on the next tick: the jobs wait in the outbox meanwhile.
 */
export function startRelay(
  store: MemoryStore,
  queue: JobQueue,
  opts: { intervalMs?: number; ack?: boolean; onError?: (e: unknown) => void } = {},
): Relay {
  let running: Promise<number> | null = null;
  let lastError = '';
  const flush = (): Promise<number> => {
    running ??= relayOutbox(store, queue, {
      ...(opts.ack === false ? { ack: false } : {}),
    }).finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    flush().then(
      () => {
        lastError = '';
      },
      (e: unknown) => {
        // Report an outage once, not on every tick while it lasts.
        const msg = e instanceof Error ? e.message : String(e);
        if (msg !== lastError) (opts.onError ?? ((x) => console.error('[keepgraph] relay:', x)))(e);
        lastError = msg;
      },
    );
  }, opts.intervalMs ?? 250);
  timer.unref();
  return {
    flush,
    async stop() {
      clearInterval(timer);
      if (running) await (running as Promise<number>).catch(() => 0);
    },
  };
}
