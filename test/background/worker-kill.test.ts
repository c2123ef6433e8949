// A `keepgraph worker` process killed with SIGKILL in the middle of a
// reflection: BullMQ sees the job's lock lapse, a second worker runs it
// again, and the owner's graph ends equal to an uninterrupted run's (the
// same episodes, reflected and compacted by the in-process runner).
//
// Both runs reflect through the OpenAI-compatible extractor against a fake
// chat-completions server that answers with what core's statement extractor
// reads in the episodes each request carries. The kill is deterministic: the
// server holds its replies until the first worker's first extraction request
// has arrived (the worker is inside the reflect job, before any write), and
// the worker is killed while it waits for that reply.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type Engine, type MemoryInput } from '@keepgraph/core';
import { createStatementExtractor, startInProcessBackground } from '@keepgraph/core/jobs';
import { systemClock, type MemoryStore } from '@keepgraph/core/ports';
import { redisConnection } from '@keepgraph/runtime';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { createOpenAiExtractor } from '@keepgraph/extractor-openai';
import {
  claimsCompletion,
  requestEpisodes,
  startFakeChatServer,
  type FakeChatServer,
} from '@keepgraph/extractor-openai/testing';
import { bullIdle, engineOver, user } from './harness.ts';
import { graphSnapshot } from './graph-snapshot.ts';
import { spawnWorker } from '../e2e/keepgraph-process.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const THINGS = [
  'finance',
  'crypto',
  'gambling',
  'tobacco',
  'defence',
  'mining',
  'fashion',
  'retail',
];
const GOALS = ['learn Rust', 'run a marathon', 'visit Japan', 'write a book', 'learn piano'];

/** 150 episodes: statements the extractor reads, and near-duplicates to compact. */
function workload(): MemoryInput[] {
  const texts: string[] = [];
  for (const [i, t] of THINGS.entries()) {
    texts.push(`I'd rather not work with ${t} clients after the project number ${i + 1}.`);
    texts.push(`Weekly review: the user strongly dislikes ${t} clients because of late payments.`);
  }
  for (const g of GOALS) texts.push(`I want to ${g} this year.`);
  for (const t of THINGS) texts.push(`I love working with ${t} startups.`);
  let n = 0;
  while (texts.length < 150) {
    n++;
    texts.push(`Booked flight ${n} for Alex: aisle seat, economy class, one checked bag.`);
  }
  return texts.map((text, i) => ({
    kind: 'episode',
    text,
    origin: { sessionId: `s-${i}`, turn: '1' },
  }));
}

async function engineOn(path: string): Promise<{ engine: Engine; store: MemoryStore }> {
  const store = createSqliteStore({ path });
  return { engine: await engineOver(store, { clock: systemClock }), store };
}

const MODEL = 'fake-model';
const API_KEY = 'test-key';
/** Longer than the hold: the first worker is still waiting for its reply when killed. */
const EXTRACTOR_TIMEOUT_MS = 120_000;

/**
 * The fake endpoint: each extraction request is answered with the claims the
 * statement extractor finds in the episodes it carried (relations' missing
 * reasons as null, as strict structured outputs send them). While held, a
 * request waits for `release()`.
 */
async function startStatementChat() {
  const statements = createStatementExtractor();
  let held: { released: Promise<void>; release: () => void } | null = null;
  let onHeld: (() => void) | null = null;
  const server: FakeChatServer = await startFakeChatServer(async (req) => {
    const wait = held;
    if (wait) {
      onHeld?.();
      await wait.released;
    }
    const claims = await statements.extract({ ownerId: 'fake', episodes: requestEpisodes(req) });
    return claimsCompletion(
      claims.map((c) => ({
        ...c,
        relations: c.relations.map((r) => ({ ...r, reason: r.reason ?? null })),
      })),
    );
  });
  return {
    server,
    /** Hold replies from now on; resolves when the first held request arrives. */
    hold(): Promise<void> {
      let release!: () => void;
      const released = new Promise<void>((ok) => (release = ok));
      held = { released, release };
      return new Promise<void>((ok) => (onHeld = ok));
    },
    release(): void {
      const h = held;
      held = null;
      onHeld = null;
      h?.release();
    },
  };
}

async function writeAll(engine: Engine, ownerId: string) {
  for (const input of workload()) await engine.remember(user, ownerId, input);
}

/** A worker over the SQLite data dir, reflecting through the fake chat server. */
function startReflectingWorker(dataDir: string, prefix: string, chatBaseUrl: string) {
  // The real model (process.env names none): the worker reflects memories embedded by it.
  return spawnWorker(['--data', dataDir, '--lock-ms', '2000', '--no-schedules'], {
    ...process.env,
    KEEPGRAPH_STORE: 'sqlite',
    KEEPGRAPH_REDIS_URL: inject('redisUrl'),
    KEEPGRAPH_REDIS_PREFIX: prefix,
    KEEPGRAPH_EXTRACTOR: 'openai',
    KEEPGRAPH_OPENAI_BASE_URL: chatBaseUrl,
    KEEPGRAPH_OPENAI_MODEL: MODEL,
    KEEPGRAPH_OPENAI_API_KEY: API_KEY,
    KEEPGRAPH_OPENAI_TIMEOUT_MS: String(EXTRACTOR_TIMEOUT_MS),
  });
}

describe('a worker killed with SIGKILL mid-reflection', () => {
  it('has its job retried by another worker, and the graph equals an uninterrupted run', async () => {
    const chat = await startStatementChat();
    try {
      // The uninterrupted run: same episodes, same extractor, the in-process runner.
      const refDir = mkdtempSync(join(tmpdir(), 'kg-kill-ref-'));
      dirs.push(refDir);
      const ref = await engineOn(join(refDir, 'keepgraph.db'));
      const refOwner = `ref-${randomUUID()}`;
      await writeAll(ref.engine, refOwner);
      const extractor = createOpenAiExtractor({
        baseUrl: chat.server.baseUrl,
        model: MODEL,
        apiKey: API_KEY,
      });
      const bg = startInProcessBackground(ref.engine, {
        schedules: false,
        backoffMs: 20,
        extractor,
      });
      await bg.settle();
      await bg.stop();
      const expected = await graphSnapshot(ref.store, refOwner);
      await ref.store.close();
      expect(
        expected.memories.filter((m) => m.extractor === 'openai-compatible').length,
      ).toBeGreaterThan(10);
      expect(expected.memories.some((m) => m.extractor === 'keepgraph-compaction')).toBe(true);

      // The interrupted run: written first (the jobs wait in the outbox), then
      // a worker process picks them up and is killed while reflecting.
      const dataDir = mkdtempSync(join(tmpdir(), 'kg-kill-'));
      dirs.push(dataDir);
      const run = await engineOn(join(dataDir, 'keepgraph.db'));
      const owner = `killed-${randomUUID()}`;
      await writeAll(run.engine, owner);
      expect((await run.store.outboxPending(1000)).length).toBeGreaterThan(0);

      const prefix = `kgkill-${randomUUID().slice(0, 8)}`;
      const connection = redisConnection(inject('redisUrl'));
      const queues = ['reflect', 'compact', 'rederive', 'expire', 'reembed'].map(
        (name) => new Queue(name, { connection, prefix }),
      );
      const reflectQueue = queues[0]!;
      try {
        const requestsBefore = chat.server.requests.length;
        const firstRequest = chat.hold();
        const first = startReflectingWorker(dataDir, prefix, chat.server.baseUrl);
        await first.ready;
        expect(first.log()).toContain('extractor openai-compatible');
        // The first extraction request: the worker is inside the reflect job,
        // waiting for the reply, and has written nothing of it yet.
        let waited: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          firstRequest,
          new Promise((_, fail) => {
            waited = setTimeout(
              () => fail(new Error(`no reflection ever ran:\n${first.log()}`)),
              60_000,
            );
          }),
        ]).finally(() => clearTimeout(waited));
        expect(chat.server.requests.length).toBe(requestsBefore + 1);
        const activeId = (await reflectQueue.getActive())[0]?.id;
        expect(activeId, `no active reflect job:\n${first.log()}`).toBeDefined();
        const killed = new Promise((r) => first.child.once('exit', r));
        first.child.kill('SIGKILL');
        await killed;
        const interrupted = await reflectQueue.getJob(activeId!);
        expect(interrupted?.finishedOn, 'the kill came after the job finished').toBeUndefined();
        chat.release();

        const second = startReflectingWorker(dataDir, prefix, chat.server.baseUrl);
        await second.ready;
        try {
          // Until the outbox is empty and every queue is drained.
          for (;;) {
            await bullIdle(queues);
            if ((await run.store.outboxPending(1)).length === 0) {
              await new Promise((r) => setTimeout(r, 500));
              if ((await run.store.outboxPending(1)).length === 0) {
                await bullIdle(queues);
                break;
              }
            }
          }
          const retried = await reflectQueue.getJob(activeId!);
          expect(retried?.finishedOn, second.log()).toBeDefined();
          expect(retried?.failedReason).toBeUndefined();
        } finally {
          await second.stop();
        }
        // The second worker asked again for what the first never received.
        expect(chat.server.requests.length).toBeGreaterThan(requestsBefore + 1);
        expect(await graphSnapshot(run.store, owner)).toEqual(expected);
      } finally {
        await Promise.all(queues.map((q) => q.obliterate({ force: true }).catch(() => {})));
        await Promise.all(queues.map((q) => q.close()));
        await run.store.close();
      }
    } finally {
      chat.release();
      await chat.server.close();
    }
  }, 240_000);
});
