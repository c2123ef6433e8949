// `keepgraph worker`: a background process of server mode. It runs the
// BullMQ workers (reflect, compact, rederive, expire, reembed) with the
// shared processors over the configured store, relays the store's outbox to
// the queues, installs the schedules, and on SIGINT/SIGTERM stops taking
// jobs and lets running ones finish. Embedded mode needs none of this:
// `keepgraph start` runs the same processors in-process.
import type { Command } from 'commander';
import type { JobName } from '@keepgraph/core/ports';
import { globalOptions } from '../context.ts';
import { CliExit, EXIT } from '../exit.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';

interface WorkerFlags {
  concurrency?: number;
  lockMs?: number;
  schedules: boolean;
}

export function registerWorker(program: Command, io: Io): void {
  program
    .command('worker')
    .description('run background jobs from Redis (server mode: KEEPGRAPH_REDIS_URL) until stopped')
    .option('--concurrency <n>', 'jobs at once per queue (default 1)', intOption(1, 64))
    .option(
      '--lock-ms <ms>',
      "how long a job's lock lasts before a dead worker's job is taken over (default 30000)",
      intOption(1000, 3_600_000),
    )
    .option(
      '--no-schedules',
      'do not install the repeatable schedules (expiry, reflection, compaction)',
    )
    .action(async (f: WorkerFlags, cmd: Command) => {
      const g = globalOptions(cmd);
      const { loadServerConfig, openEmbeddedRuntime, redisConnection, storeSelection } =
        await import('@keepgraph/runtime');
      const { startWorkerProcess } = await import('@keepgraph/workers');
      const { JOB_NAMES } = await import('@keepgraph/core/ports');
      const { openAiExtractorFromEnv } = await import('@keepgraph/extractor-openai');
      const config = loadServerConfig(process.env, { dataDir: g.dataDir });
      if (config.redisUrl === undefined) {
        io.err(
          'keepgraph worker runs jobs from Redis: set KEEPGRAPH_REDIS_URL (server mode). ' +
            'In the embedded mode `keepgraph start` runs them in-process.',
        );
        throw new CliExit(EXIT.error);
      }
      const runtime = await openEmbeddedRuntime({
        dataDir: config.dataDir,
        ...(config.auditSecret !== undefined && { auditSecret: config.auditSecret }),
        store: storeSelection(config),
        policyPath: g.policyPath ?? config.policyPath,
        modelId: g.modelId ?? config.modelId,
        ...(config.modelsDir ? { modelsDir: config.modelsDir } : {}),
        // The jobs run on BullMQ here, not in an in-process runner.
        sweepIntervalMs: null,
      });
      const extractor = openAiExtractorFromEnv(process.env);
      const concurrency = f.concurrency
        ? (Object.fromEntries(JOB_NAMES.map((n) => [n, f.concurrency])) as Record<JobName, number>)
        : undefined;
      const worker = await startWorkerProcess({
        engine: runtime.engine,
        connection: redisConnection(config.redisUrl),
        prefix: config.redisPrefix,
        ...(extractor ? { extractor } : {}),
        ...(concurrency ? { concurrency } : {}),
        ...(f.lockMs
          ? { lockDurationMs: f.lockMs, stalledIntervalMs: Math.max(500, f.lockMs / 2) }
          : {}),
        schedules: f.schedules,
        ...(config.sweepIntervalMs ? { expiryEveryMs: config.sweepIntervalMs } : {}),
        log: (line) => io.err(`worker: ${line}`),
      });
      io.out(
        `KeepGraph worker running: queues ${JOB_NAMES.join(', ')} on ${config.redisUrl.replace(/\/\/[^@]*@/, '//***@')} ` +
          `(prefix ${config.redisPrefix}, store ${config.store}, extractor ${extractor ? extractor.info.name : 'keepgraph-statements'})`,
      );
      await new Promise<void>((done) => {
        const stop = () => {
          io.err('worker: stopping (running jobs finish first)');
          worker
            .close()
            .then(() => runtime.close())
            .then(done, done);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
