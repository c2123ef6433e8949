// Redis stopped while memories are written (400 at CI scale, 1,000 at full
// scale: test/scale.ts), then restarted: the
// writes never wait on Redis (their jobs go into the store's outbox in the
// same transaction), the relay moves them once Redis is back, and every
// job recorded runs exactly once in effect. Its own redis-server (with an
// fsync'd append-only file, as a production Redis would run) so that it can
// be stopped and restarted without disturbing the other tests' Redis.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { isKeepGraphError } from '@keepgraph/core';
import { defaultPolicy } from '@keepgraph/core/policy';
import { systemClock, type MemoryStore, type WriteBatch } from '@keepgraph/core/ports';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { startWorkerProcess } from '@keepgraph/workers';
import { testRedis } from '@keepgraph/workers/testing';
import { scaled } from '../scale.ts';
import { bullIdle, engineOver, user } from './harness.ts';

/** Episodes written: the first 30 % before the outage, 40 % during it, the rest after. */
const WRITES = scaled('KG_OUTAGE_WRITES', { ci: 400, full: 1000 });

const dir = mkdtempSync(join(tmpdir(), 'kg-outage-'));
// An fsync'd append-only file, as a production Redis would run.
const redis = testRedis({ dir, appendOnly: true });
const port = redis.port;
const startRedis = () => redis.start();
const stopRedis = () => redis.stop('SIGTERM'); // clean: the append-only file is complete

afterAll(async () => {
  await stopRedis();
  rmSync(dir, { recursive: true, force: true });
});

/** The real store, with every job it accepted in a committed write noted. */
function recordingJobs(store: MemoryStore, recorded: Set<string>): MemoryStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'write')
        return async (batch: WriteBatch) => {
          await target.write(batch);
          for (const j of batch.jobs ?? []) recorded.add(j.id);
        };
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe(`Redis stopped while ${WRITES.toLocaleString('en')} memories are written`, () => {
  it('loses no job and runs each once in effect', async () => {
    await startRedis();
    const sqlite = createSqliteStore({ path: join(dir, 'kg.db') });
    const recorded = new Set<string>();
    const engine = await engineOver(recordingJobs(sqlite, recorded), { clock: systemClock });
    const completions = new Map<string, number>();
    const failures: string[] = [];
    const wp = await startWorkerProcess({
      engine,
      connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
      prefix: 'kgoutage',
      schedules: false,
      relayIntervalMs: 50,
    });
    for (const w of wp.workers.workers) {
      w.on('completed', (job) => {
        const id = decodeURIComponent(job.id!);
        completions.set(id, (completions.get(id) ?? 0) + 1);
      });
      w.on('failed', (job, err) => failures.push(`${job?.id}: ${err.message}`));
    }
    const owners = [`a-${randomUUID()}`, `b-${randomUUID()}`];
    const write = async (i: number) => {
      const negative = i % 50 === 7;
      await engine.remember(user, owners[i % 2]!, {
        kind: 'episode',
        text: negative
          ? `Call ${i}: the client complained and the user strongly dislikes vendor ${i % 13} after the delay.`
          : `Call ${i}: discussed invoice ${i} and the delivery schedule for order ${i * 7}.`,
        origin: { sessionId: `call-${i}`, turn: '1' },
      });
    };
    try {
      const [down, up] = [Math.round(WRITES * 0.3), Math.round(WRITES * 0.7)];
      for (let i = 0; i < down; i++) await write(i);
      await stopRedis();
      // Every write still succeeds: nothing on the write path touches Redis.
      for (let i = down; i < up; i++) await write(i);
      const waiting = (await sqlite.outboxPending(10_000)).length;
      expect(waiting).toBeGreaterThan(0);
      await startRedis();
      for (let i = up; i < WRITES; i++) await write(i);

      const queues = [...wp.queue.queues.values()];
      for (;;) {
        // The producer and the queues' own connection reconnect on their own
        // schedules after the restart: until they have, a flush is refused as
        // the relay's own ticks are (the jobs stay in the outbox) and a job
        // count is refused at once; both are tried again.
        try {
          await wp.relay.flush();
          await bullIdle(queues);
        } catch (e) {
          const reconnecting =
            (isKeepGraphError(e) && e.code === 'queue_unavailable') ||
            (e instanceof Error && /Stream isn't writeable/.test(e.message));
          if (!reconnecting) throw e;
          await sleep(100);
          continue;
        }
        if ((await sqlite.outboxPending(1)).length === 0) break;
      }
      expect(failures).toEqual([]);
      // 106 jobs at 1,000 writes in a measured run: the bound is loose.
      expect(recorded.size).toBeGreaterThan(WRITES / 25);
      // Every job recorded with a write reached BullMQ and completed, once.
      expect([...recorded].filter((id) => completions.get(id) !== 1)).toEqual([]);
      expect([...completions.keys()].filter((id) => !recorded.has(id))).toEqual([]);
      // In effect: every episode reflected once, no claim written twice.
      const now = new Date().toISOString();
      for (const o of owners) {
        expect(await sqlite.countUnreflected(o, now)).toBeLessThan(
          defaultPolicy().background.reflection.afterEpisodes,
        );
        const all = await sqlite.getByIds(o, await sqlite.listIds(o));
        expect(all.filter((m) => m.kind === 'episode')).toHaveLength(WRITES / 2);
        const current = all.filter((m) => m.derivedFrom.length > 0 && m.supersededBy === null);
        const keys = current.map((m) => m.key);
        expect(new Set(keys).size).toBe(keys.length);
      }
      console.log(
        `outage: ${recorded.size} jobs recorded, ${waiting} waited in the outbox while Redis was down; all completed once`,
      );
    } finally {
      await wp.close();
      await sqlite.close();
    }
  }, 300_000);
});
