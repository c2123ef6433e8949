// A worker process of server mode, composed: the BullMQ queues, one Worker
// per queue running the shared processors, the outbox relay (jobs the
// store recorded with its writes, moved to BullMQ), and the schedules.
// `keepgraph worker` runs this until SIGINT/SIGTERM, then closes gracefully:
// no new jobs, running ones finish, the relay stops after its round.
import type { ConnectionOptions } from 'bullmq';
import {
  ALL_OWNERS,
  createProcessors,
  reembedJob,
  createStatementExtractor,
  startRelay,
  type Engine,
  type Extractor,
  type JobName,
  type Relay,
} from '@keepgraph/core';
import { BullMqJobQueue } from './bullmq-job-queue.ts';
import { startWorkers, type RunningWorkers } from './bullmq-workers.ts';
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
  log?: (line: string) => void;
}

export interface WorkerProcess {
  queue: BullMqJobQueue;
  workers: RunningWorkers;
  relay: Relay;
  close(): Promise<void>;
}

export async function startWorkerProcess(opts: WorkerProcessOptions): Promise<WorkerProcess> {
  const log = opts.log ?? (() => {});
  const queue = new BullMqJobQueue({
    connection: opts.connection,
    ...(opts.prefix ? { prefix: opts.prefix } : {}),
  });
  const processors = createProcessors(opts.engine, {
    extractor: opts.extractor ?? createStatementExtractor(),
  });
  const workers = startWorkers({
    connection: opts.connection,
    ...(opts.prefix ? { prefix: opts.prefix } : {}),
    processors,
    ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
    ...(opts.lockDurationMs ? { lockDurationMs: opts.lockDurationMs } : {}),
    ...(opts.stalledIntervalMs ? { stalledIntervalMs: opts.stalledIntervalMs } : {}),
    onFailed: (name, id, e) => log(`job ${name} ${id ?? ''} failed: ${e.message}`),
  });
  const relay = startRelay(opts.engine.deps.store, queue, {
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
  let closing: Promise<void> | null = null;
  return {
    queue,
    workers,
    relay,
    close() {
      closing ??= (async () => {
        await relay.stop();
        await workers.close();
        await queue.close();
      })();
      return closing;
    },
  };
}
