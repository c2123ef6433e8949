// In-process expiry sweeper for the embedded mode: calls expireDue on a timer.
// Retrieval already hides expired memories; the sweeper makes them gone.
import type { Engine } from './engine.ts';
import type { ExpiryRun } from './use-cases/forget.ts';

export interface Sweeper {
  /** Run one sweep now (also what the timer calls). */
  sweep(): Promise<ExpiryRun>;
  stop(): Promise<void>;
}

export function startExpirySweeper(
  engine: Engine,
  opts: {
    intervalMs?: number;
    onRun?: (r: ExpiryRun) => void;
    onError?: (e: unknown) => void;
  } = {},
): Sweeper {
  const caller = { role: 'operator' as const, principal: 'system:sweeper' };
  let running: Promise<ExpiryRun> | null = null;
  const sweep = async (): Promise<ExpiryRun> => {
    // One sweep at a time: overlapping sweeps would race for the same rows.
    if (running) return running;
    running = (async () => {
      let total: ExpiryRun = { purged: 0, owners: 0, lagsMs: [], receipts: [] };
      for (;;) {
        const r = await engine.expireDue(caller, { limit: 1000 });
        total = {
          purged: total.purged + r.purged,
          owners: total.owners + r.owners,
          lagsMs: [...total.lagsMs, ...r.lagsMs],
          receipts: [...total.receipts, ...r.receipts],
        };
        if (r.purged < 1000) return total;
      }
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    // A failing sweep must be seen: expired memories stay hidden from recall
    // but would never be purged.
    sweep().then(
      opts.onRun,
      opts.onError ?? ((e) => console.error('[keepgraph] expiry sweep failed:', e)),
    );
  }, opts.intervalMs ?? 1000);
  timer.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      if (running) await running.catch(() => {});
    },
  };
}
