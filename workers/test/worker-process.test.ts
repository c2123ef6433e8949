// A worker process's start and shutdown when Redis or the store misbehave:
// a start that fails part way closes what it started before it throws, and
// `close()` gives up on a step that does not finish, says which, and closes
// the rest. The engine is a stand-in: only the relay's store calls, the
// policy and the model id are reached here.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { type Engine } from '@keepgraph/core';
import { defaultPolicy, type Policy } from '@keepgraph/core/policy';
import { type OutboxEntry } from '@keepgraph/core/ports';
import { DEFAULT_PRODUCER_TIMEOUT_MS, startWorkerProcess } from '../src/index.ts';

/** An engine whose store counts the relay's reads of the outbox; `hang` makes them never answer. */
function standInEngine(opts: { hang?: boolean; policy?: Policy } = {}) {
  const reads = { count: 0 };
  const store = {
    outboxPending: (): Promise<OutboxEntry[]> => {
      reads.count++;
      return opts.hang ? new Promise(() => {}) : Promise.resolve([]);
    },
    outboxAck: async () => {},
  };
  const engine = {
    deps: { store, policy: opts.policy ?? defaultPolicy(), embedder: { modelId: 'test-model' } },
  } as unknown as Engine;
  return { engine, reads };
}

describe('startWorkerProcess', () => {
  it('closes the relay, the workers and the queues it started when the schedules cannot be installed, then throws', async () => {
    const { engine, reads } = standInEngine();
    const lines: string[] = [];
    const t0 = Date.now();
    await expect(
      startWorkerProcess({
        engine,
        // Nothing listens on port 1.
        connection: { host: '127.0.0.1', port: 1, maxRetriesPerRequest: null },
        prefix: `kgtest-${randomBytes(4).toString('hex')}`,
        relayIntervalMs: 20,
        log: (l) => lines.push(l),
      }),
    ).rejects.toThrow(Error);
    expect(Date.now() - t0).toBeLessThan(DEFAULT_PRODUCER_TIMEOUT_MS + 3000);
    // The relay was running, and is stopped: the outbox is no longer read.
    expect(reads.count).toBeGreaterThan(0);
    const after = reads.count;
    await sleep(200);
    expect(reads.count).toBe(after);
    // Every step closed within its deadline.
    expect(lines.filter((l) => l.includes('left behind'))).toEqual([]);
  });

  it('closes every connection it opened when a schedule is refused part way, then throws', async () => {
    const p = defaultPolicy();
    // BullMQ refuses a scheduler with neither an interval nor a pattern: the
    // expiry sweep is installed, reflection's is not.
    const policy = {
      ...p,
      background: { ...p.background, reflection: { ...p.background.reflection, every: 0 } },
    };
    const { engine, reads } = standInEngine({ policy });
    // ioredis names every connection made with these options (BullMQ renames
    // its workers' blocking ones to prefix:queue): CLIENT LIST finds them all.
    const prefix = `kgtest-${randomBytes(4).toString('hex')}`;
    await expect(
      startWorkerProcess({
        engine,
        connection: { url: inject('redisUrl'), maxRetriesPerRequest: null, connectionName: prefix },
        prefix,
        relayIntervalMs: 20,
      }),
    ).rejects.toThrow(/every/);
    const after = reads.count;
    await sleep(200);
    expect(reads.count).toBe(after);
    const admin = new Redis(inject('redisUrl'));
    try {
      const names = ((await admin.client('LIST')) as string).match(/ name=\S*/g) ?? [];
      expect(names.filter((n) => n.includes(prefix))).toEqual([]);
    } finally {
      admin.disconnect();
    }
  });

  it('gives up on a step that does not close within closeTimeoutMs, logs it, and closes the rest', async () => {
    const { engine, reads } = standInEngine({ hang: true });
    const lines: string[] = [];
    const wp = await startWorkerProcess({
      engine,
      connection: { url: inject('redisUrl'), maxRetriesPerRequest: null },
      prefix: `kgtest-${randomBytes(4).toString('hex')}`,
      schedules: false,
      relayIntervalMs: 20,
      closeTimeoutMs: 300,
      log: (l) => lines.push(l),
    });
    // A relay round is under way, waiting on a store that never answers.
    while (reads.count === 0) await sleep(10);
    const t0 = Date.now();
    await wp.close();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(lines).toEqual(['relay: did not close within 300 ms; left behind']);
    // The workers and the queues closed their connections all the same.
    for (const c of [...wp.workers.workers, ...wp.queue.queues.values()])
      expect((await c.client).status).toBe('end');
    // Idempotent.
    await wp.close();
  });
});
