// The embedded mode's background work, composed: the outbox relay feeding
// the in-process runner, the runner calling the shared processors, and the
// schedules (expiry sweep, periodic reflection and compaction) as jobs.
// Server mode composes the same pieces around BullMQ (workers/).
import { SCHEDULED_JOBS, scheduleEveryMs, startupJobs } from './job-registry.ts';
import type { Extractor } from '../ports/extractor.ts';
import { InProcessJobRunner, type InProcessRunnerOptions } from './in-process-runner.ts';
import { createProcessors, type JobHost } from './processors.ts';
import { expireJob, scheduledJobs } from '../domain/job-ids.ts';
import { startRelay, type Relay } from './relay.ts';
import { createStatementExtractor } from './statement-extractor.ts';

export interface InProcessBackgroundOptions extends InProcessRunnerOptions {
  /** The reflection extractor; the built-in statement extractor by default. */
  extractor?: Extractor;
  relayIntervalMs?: number;
  /** The expiry sweep's period in ms, overriding policy.background.expiry.sweepEvery. */
  expiryEveryMs?: number;
  /** Start the timers of the schedules (policy.background); off for one-shot commands and tests that tick by hand. */
  schedules?: boolean;
  onError?: (e: unknown) => void;
}

export interface InProcessBackground {
  runner: InProcessJobRunner;
  relay: Relay;
  /** Relay and run until nothing is left: the outbox empty and the runner idle. */
  settle(): Promise<void>;
  /** Enqueue one expiry sweep now (what its timer does). */
  tickExpiry(): Promise<void>;
  /** Enqueue the scheduled reflection and compaction of every owner now. */
  tickConsolidation(): Promise<void>;
  stop(): Promise<void>;
}

export function startInProcessBackground(
  engine: JobHost,
  opts: InProcessBackgroundOptions = {},
): InProcessBackground {
  const { store, clock, policy } = engine.deps;
  const report = opts.onError ?? ((e: unknown) => console.error('[keepgraph] background:', e));
  const runner = new InProcessJobRunner(
    createProcessors(engine, { extractor: opts.extractor ?? createStatementExtractor() }),
    {
      ...opts,
      onFailed: (job, e, final) => {
        opts.onFailed?.(job, e, final);
        if (final) report(e);
      },
      // A job leaves the outbox only once it is done: what a crash or a
      // shutdown interrupts runs again at the next start.
      onDone: (job) => store.outboxAck([job.id]),
      onFinished: (job, outcome, durationMs) => {
        opts.onFinished?.(job, outcome, durationMs);
        engine.deps.observe?.({ type: 'job', queue: job.name, outcome, durationMs });
      },
    },
  );
  const relay = startRelay(store, runner, {
    ack: false,
    ...(opts.relayIntervalMs ? { intervalMs: opts.relayIntervalMs } : {}),
    onError: report,
  });
  const tickExpiry = () => runner.enqueue([expireJob(clock.now().toISOString())]);
  const tickConsolidation = () => runner.enqueue(scheduledJobs(clock.now().toISOString()));
  const timers: NodeJS.Timeout[] = [];
  if (opts.schedules) {
    const everyMs = (ms: number, fn: () => Promise<void>) => {
      const t = setInterval(() => void fn().catch(report), ms);
      t.unref();
      timers.push(t);
    };
    for (const { name, schedule } of SCHEDULED_JOBS) {
      const ms = scheduleEveryMs(name, schedule, policy, opts);
      everyMs(ms, () => runner.enqueue([schedule.job(clock.now().toISOString())]));
    }
    // Memories embedded by another model (the configured one changed) are
    // re-embedded once, in the background; recall uses the stored vectors meanwhile.
    void runner.enqueue(startupJobs(engine.deps.embedder.modelId)).catch(report);
  }
  return {
    runner,
    relay,
    async settle() {
      // Jobs leave the outbox when done, and jobs may record new ones (a
      // cascade's rederive): until the outbox is empty with nothing running.
      for (;;) {
        await relay.flush();
        await runner.idle();
        if ((await store.outboxPending(1)).length === 0) return;
      }
    },
    tickExpiry,
    tickConsolidation,
    async stop() {
      for (const t of timers) clearInterval(t);
      await relay.stop();
      await runner.close();
    },
  };
}
