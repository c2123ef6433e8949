// `keepgraph worker`: the background process of server mode. For now it runs
// the expiry sweeper (purge with the cascade, scheduled vs actual times
// audited) against the configured store until SIGINT/SIGTERM; the BullMQ
// queues (reflect, compact, rederive) join it with the workers issue.
import type { Command } from 'commander';
import { globalOptions } from '../context.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';

export function registerWorker(program: Command, io: Io): void {
  program
    .command('worker')
    .description('run background jobs (the expiry sweeper) until stopped')
    .option(
      '--interval <ms>',
      'sweep period (default KEEPGRAPH_SWEEP_INTERVAL_MS or 1000)',
      intOption(100, 86_400_000),
    )
    .action(async (f: { interval?: number }, cmd: Command) => {
      const g = globalOptions(cmd);
      const { loadServerConfig, openEmbeddedRuntime, storeSelection } =
        await import('@keepgraph/server');
      const config = loadServerConfig(process.env, { dataDir: g.dataDir });
      const intervalMs = f.interval ?? (config.sweepIntervalMs || 1000);
      const runtime = await openEmbeddedRuntime({
        dataDir: config.dataDir,
        store: storeSelection(config),
        policyPath: g.policyPath ?? config.policyPath,
        modelId: g.modelId ?? config.modelId,
        ...(config.modelsDir ? { modelsDir: config.modelsDir } : {}),
        sweepIntervalMs: intervalMs,
        onSweepError: (e) =>
          io.err(`expiry sweep failed: ${e instanceof Error ? e.message : String(e)}`),
      });
      io.out(
        `KeepGraph worker running: expiry sweep every ${intervalMs} ms (data ${config.dataDir})`,
      );
      // The sweeper's timer does not hold the process open (it must not keep
      // one-shot commands alive), so the worker holds it open itself.
      const keepAlive = setInterval(() => {}, 60_000);
      await new Promise<void>((done) => {
        const stop = () => {
          io.err('worker: stopping');
          clearInterval(keepAlive);
          runtime.close().then(done, done);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
