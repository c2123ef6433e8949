// Consolidation stays consistent where timing and history get in the way:
// a job leaves the outbox only when done, a backlog always has a job asking
// for it, a derivation made again after its newer version went is written
// live, a contradiction read in one run leaves one claim, and a cluster that
// outgrows the scan window keeps one summary. Embedded mode (the processors
// are the same in server mode).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInProcessBackground, isCompactionSummary } from '@keepgraph/core/jobs';
import { type Policy } from '@keepgraph/core/policy';
import { ManualClock } from '@keepgraph/core/ports';
import { createOpenAiExtractor } from '@keepgraph/extractor-openai';
import { claimsCompletion, startFakeChatServer } from '@keepgraph/extractor-openai/testing';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import {
  closeAfterEach,
  embeddedMode,
  engineOver,
  settleConsolidation,
  user,
  type FixtureOptions,
} from './harness.ts';
import { liveMemories } from './scenarios.ts';

const closing = closeAfterEach();
const open = async (opts: FixtureOptions = {}) => closing(await embeddedMode.fixture(opts));
const episode = (text: string, turn: string) => ({
  kind: 'episode' as const,
  text,
  origin: { sessionId: 'c', turn },
});
const tweak =
  (bg: (b: Policy['background']) => Policy['background']) =>
  (p: Policy): Policy => ({ ...p, background: bg(p.background) });

describe('background consistency', () => {
  it('keeps a job in the outbox until it is done', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((ok) => (release = ok));
    let asked: () => void = () => {};
    const arrived = new Promise<void>((ok) => (asked = ok));
    const chat = closing(
      await startFakeChatServer(async () => {
        asked();
        await held;
        return claimsCompletion([]);
      }),
    );
    const g = await open({
      extractor: createOpenAiExtractor({ baseUrl: chat.baseUrl, model: 'm', apiKey: 'k' }),
    });
    const o = g.owner();
    await g.engine.remember(
      user,
      o,
      episode('The client complained about the late delivery.', '1'),
    );
    const settled = g.settle();
    await arrived;
    // Mid-job: the reflect job is running and still recorded.
    expect((await g.store.outboxPending(100)).map((p) => p.job.name)).toContain('reflect');
    release();
    await settled;
    expect(await g.store.outboxPending(100)).toEqual([]);
  });

  it('asks for a backlog to be reflected on every write until it is, under one job id', async () => {
    // An engine with no background running: the jobs wait in the outbox
    // until this test runs them.
    const dir = mkdtempSync(join(tmpdir(), 'kg-backlog-'));
    const store = createSqliteStore({ path: join(dir, 'kg.db') });
    const engine = await engineOver(store, {
      clock: new ManualClock(new Date().toISOString()),
      policy: tweak((b) => ({ ...b, reflection: { ...b.reflection, afterEpisodes: 3 } })),
    });
    const o = 'backlog-owner';
    const reflectJobs = async () =>
      (await store.outboxPending(1000))
        .filter((p) => p.job.name === 'reflect' && p.job.ownerId === o)
        .map((p) => p.job.id);
    try {
      for (let i = 1; i <= 2; i++)
        await engine.remember(user, o, episode(`Booked meeting room ${i}.`, `${i}`));
      expect(await reflectJobs()).toEqual([]);
      for (let i = 3; i <= 6; i++)
        await engine.remember(user, o, episode(`Booked meeting room ${i}.`, `${i}`));
      const first = await reflectJobs();
      expect(first).toHaveLength(1);
      // Were that job lost downstream, the next write asks again, for the same backlog.
      await store.outboxAck(first);
      await engine.remember(user, o, episode('Booked meeting room 6b.', '6b'));
      expect(await reflectJobs()).toEqual(first);
      const bg = startInProcessBackground(engine, { schedules: false });
      await bg.settle();
      await bg.stop();
      expect(await store.countUnreflected(o, new Date(Date.now() + 1).toISOString())).toBe(0);
      for (let i = 7; i <= 9; i++)
        await engine.remember(user, o, episode(`Booked meeting room ${i}.`, `${i}`));
      const second = await reflectJobs();
      expect(second).toHaveLength(1);
      expect(second[0]).not.toBe(first[0]);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes a derivation made again after its newer version was deleted as live', async () => {
    const g = await open();
    const o = g.owner();
    const say = async (text: string, turn: string) => {
      const r = await g.engine.remember(user, o, episode(text, turn));
      g.clock.advance(60_000);
      await settleConsolidation(g);
      return r.memory;
    };
    const key = 'preference:user:cold calls';
    const e1 = await say('I love cold calls.', '1');
    const [c1] = (await g.store.getByKey(o, key)).filter((m) => m.supersededBy === null);
    const e2 = await say('Honestly, I love cold calls!', '2');
    const [c2] = (await g.store.getByKey(o, key)).filter((m) => m.supersededBy === null);
    expect(c2!.derivedFrom.sort()).toEqual([e1.id, e2.id].sort());
    await g.engine.forget(user, o, [e2.id]);
    await g.settle();
    const live = (await liveMemories(g, o)).filter((m) => m.key === key);
    expect(live).toHaveLength(1);
    expect(live[0]!.derivedFrom).toEqual([e1.id]);
    expect(live[0]!.id).not.toBe(c1!.id);
    const hits = await g.engine.recall(user, o, 'Does the user like cold calls?');
    expect(hits.results.map((h) => h.memory.id)).toContain(live[0]!.id);
  });

  it('keeps only the newer of a claim and its contradiction read in one run', async () => {
    const g = await open();
    const o = g.owner();
    await g.engine.remember(user, o, episode('I love cold calls.', '1'));
    g.clock.advance(60_000);
    await g.engine.remember(user, o, episode('I hate cold calls after the last campaign.', '2'));
    await g.settle();
    const live = (await liveMemories(g, o)).filter((m) => m.key === 'preference:user:cold calls');
    expect(live).toHaveLength(1);
    expect(live[0]!.relations[0]!.type).toBe('PREFERS_AGAINST');
  });

  it('keeps one summary for a cluster that outgrows the scan window', async () => {
    const g = await open({
      policy: tweak((b) => ({ ...b, compaction: { ...b.compaction, scanLimit: 5 } })),
    });
    const o = g.owner();
    const members = [];
    for (let i = 1; i <= 9; i++) {
      members.push(
        (
          await g.engine.remember(
            user,
            o,
            episode(
              `Booked flight ${i} for Alex: aisle seat, economy class, one checked bag.`,
              `${i}`,
            ),
          )
        ).memory.id,
      );
      g.clock.advance(1000);
      await settleConsolidation(g);
    }
    const summaries = (await liveMemories(g, o)).filter(isCompactionSummary);
    expect(summaries).toHaveLength(1);
    expect([...summaries[0]!.derivedFrom].sort()).toEqual([...members].sort());
  });
});
