// Deadlines on what waits for Redis. An unreachable Redis must fail the
// producer's calls (the outbox relay reports it and tries again) and must
// not hold a shutdown forever: `withDeadline` rejects a call that takes too
// long, `closeWithin` bounds one step of a shutdown and reports it if it
// misses its deadline, so the steps after it still run.

/** Default deadline of one shutdown step (relay, workers, queues). */
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

/**
 * What `work` resolves to, or a rejection with `message` once `ms` have
 * passed. Nothing can take back a Redis command already sent, so the work
 * is told through `signal` that its caller gave up, and must check it
 * before each step that would send something.
 */
export async function withDeadline<T>(
  ms: number,
  message: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const e = new Error(message);
      abort.abort(e);
      reject(e);
    }, ms);
    // A pending deadline alone must not keep the process alive.
    timer.unref();
  });
  try {
    // Promise.race subscribes to both: a late rejection of `work` is handled.
    return await Promise.race([(async () => work(abort.signal))(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Run one shutdown step, waiting at most `timeoutMs` for it. Never rejects:
 * resolves true if the step finished, false if it failed or timed out, after
 * telling `log` which step it was and why.
 */
export async function closeWithin(
  what: string,
  step: () => Promise<unknown>,
  opts: { timeoutMs?: number; log?: (line: string) => void } = {},
): Promise<boolean> {
  const ms = opts.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  try {
    await withDeadline(ms, `did not close within ${ms} ms`, step);
    return true;
  } catch (e) {
    opts.log?.(`${what}: ${e instanceof Error ? e.message : String(e)}; left behind`);
    return false;
  }
}
