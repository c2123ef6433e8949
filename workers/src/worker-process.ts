// A worker process of server mode, composed: the BullMQ queues, one Worker
// per queue running the shared processors, the outbox relay (jobs the
// store recorded with its writes, moved to BullMQ), and the schedules.
// `keepgraph worker` runs this until SIGINT/SIGTERM, then closes gracefully:
// no new jobs, running ones finish, the relay stops after its round. Each
// step of closing has a deadline, so a Redis that is gone cannot hold the
// process for ever; what misses it is logged and left behind.
import type { ConnectionOptions } from 'bullmq';
import { type Engine } from '@keepgraph/core';
import {
  ALL_OWNERS,
  createProcessors,
  reembedJob,
  createStatementExtractor,
  startRelay,
  type Relay,
} from '@keepgraph/core/jobs';
import { type Extractor, type JobName } from '@keepgraph/core/ports';
import { BullMqJobQueue } from './bullmq-job-queue.ts';
import { startWorkers, type RunningWorkers } from './bullmq-workers.ts';
import { DEFAULT_CLOSE_TIMEOUT_MS, closeWithin } from './deadlines.ts';
import { installSchedules } from './schedules.ts';

export interface WorkerProcessOptions {
  engine: Engine;
  connection: ConnectionOptions;
  prefix?: string;
  extractor?: Extractor;
  concurrency?: Partial<Record<JobName, number>>;
  /** Install the repeatable schedules (default true). */
  schedules?: boolean;
  expiryEveryMs?: number;
  relayIntervalMs?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /**
   * Deadline of each step of `close()` (default 10 s): the relay's last
   * round, the workers' running jobs, the queues' connections. A job still
   * running then is left to finish or die with the process; its lock lapses
   * and another worker runs it again.
   */
  closeTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface WorkerProcess {
  queue: BullMqJobQueue;
  workers: RunningWorkers;
  relay: Relay;
  /** Stop the relay, the workers and the queues, each within `closeTimeoutMs`. Never rejects; idempotent. */
  close(): Promise<void>;
}

/**
 * Start the workers, the relay and (unless `schedules: false`) the
 * schedules. If starting fails part way (Redis unreachable when the
 * schedules are installed, say), what was started is closed before the
 * error is thrown.
 */
export async function startWorkerProcess(opts: WorkerProcessOptions): Promise<WorkerProcess> {
  const log = opts.log ?? (() => {});
  const queue = new BullMqJobQueue({
    connection: opts.connection,
    ...(opts.prefix ? { prefix: opts.prefix } : {}),
  });
  let workers: RunningWorkers | null = null;
  let relay: Relay | null = null;
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    const timeoutMs = opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    const step = (what: string, fn: () => Promise<unknown>) =>
      closeWithin(what, fn, { timeoutMs, log });
    closing ??= Promise.all([
      // The relay enqueues through the queues: it stops before they close.
      (async () => {
        if (relay) await step('relay', () => relay!.stop());
        await step('queues', () => queue.close());
      })(),
      workers ? step('workers', () => workers!.close()) : null,
    ]).then(() => {});
    return closing;
  };

  try {
    const processors = createProcessors(opts.engine, {
      extractor: opts.extractor ?? createStatementExtractor(),
    });
    workers = startWorkers({
      connection: opts.connection,
      ...(opts.prefix ? { prefix: opts.prefix } : {}),
      processors,
      ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
      ...(opts.lockDurationMs ? { lockDurationMs: opts.lockDurationMs } : {}),
      ...(opts.stalledIntervalMs ? { stalledIntervalMs: opts.stalledIntervalMs } : {}),
      onFailed: (name, id, e) => log(`job ${name} ${id ?? ''} failed: ${e.message}`),
    });
    relay = startRelay(opts.engine.deps.store, queue, {
      ...(opts.relayIntervalMs ? { intervalMs: opts.relayIntervalMs } : {}),
      onError: (e) =>
        log(`relay: ${e instanceof Error ? e.message : String(e)} (jobs wait in the outbox)`),
    });
    if (opts.schedules !== false) {
      await installSchedules(queue, opts.engine.deps.policy, {
        ...(opts.expiryEveryMs ? { expiryEveryMs: opts.expiryEveryMs } : {}),
      });
      // Whatever was embedded by another model is re-embedded once (the job id
      // names the model, so every worker starting asks for the same job).
      await queue.enqueue([reembedJob(ALL_OWNERS, opts.engine.deps.embedder.modelId)]);
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { queue, workers, relay, close };
}
