// One owner's consolidation at a time across worker processes: a Redis lock
// per owner (SET NX PX with a token, renewed while held, released only by
// its holder). Reflection, compaction and re-derivation of one owner read
// what the others write (a claim's current version, a cluster's summaries);
// run side by side on two workers they could both write a "current" claim.
// A lock left by a killed worker lapses after its TTL, like the job's own.
import { randomUUID } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

export interface OwnerLock {
  /** Run `work` holding the owner's lock; `ran: false` (nothing run) when another holder has it, or the lock cannot be reached. */
  tryWith<T>(
    ownerId: string,
    work: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }>;
  close(): Promise<void>;
}

export function ownerLock(opts: {
  connection: RedisOptions & { url?: string };
  prefix: string;
  ttlMs: number;
}): OwnerLock {
  // BullMQ also takes a `url`; ioredis wants it as the first argument.
  const { url, ...rest } = opts.connection;
  const options: RedisOptions = { ...rest, maxRetriesPerRequest: 1 };
  const redis = url ? new Redis(url, options) : new Redis(options);
  redis.on('error', () => {}); // reported by the job that fails on it
  const key = (ownerId: string) => `${opts.prefix}:owner-lock:${ownerId}`;
  return {
    async tryWith(ownerId, work) {
      const token = randomUUID();
      let got: string | null;
      try {
        got = await redis.set(key(ownerId), token, 'PX', opts.ttlMs, 'NX');
      } catch {
        // The lock's connection is down or still reconnecting (Redis just
        // came back): not acquired, so the job comes back shortly without
        // spending an attempt, as when another worker holds the owner.
        return { ran: false };
      }
      if (got !== 'OK') return { ran: false };
      const renew = setInterval(
        () => void redis.eval(RENEW, 1, key(ownerId), token, String(opts.ttlMs)).catch(() => {}),
        Math.max(100, Math.floor(opts.ttlMs / 3)),
      );
      renew.unref();
      try {
        return { ran: true, value: await work() };
      } finally {
        clearInterval(renew);
        await redis.eval(RELEASE, 1, key(ownerId), token).catch(() => {});
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
