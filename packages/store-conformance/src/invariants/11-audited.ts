// Invariant 11, audited: append-only, hash-chained, verifiable; ids and
// hashes, never deleted content.
import { describe, expect, it } from 'vitest';
import {
  expectCode,
  kv,
  makeFixture,
  operator,
  tool,
  type ConformanceOptions,
  type Fixture,
  user,
  userEpisode,
} from '../harness.ts';

export function auditedSuite(opts: ConformanceOptions): void {
  describe('invariant 11: audited', () => {
    /** Run `test` on a fixture over a fresh store, closed after it. */
    const onOwnStore = async (test: (f: Fixture) => Promise<void>): Promise<void> => {
      const f = await makeFixture(opts, await opts.makeStore());
      try {
        await test(f);
      } finally {
        await f.sut.close();
      }
    };

    it('an export pages through the held memories and is audited as a read of each page', () =>
      onOwnStore(async (f) => {
        const o = f.owner();
        const kept = [];
        for (let i = 0; i < 5; i++)
          kept.push(
            (await userEpisode(f, o, `Export note ${i} about the bicycle repair shop`)).memory,
          );
        const old = await f.engine.putByKey(user, o, 'bike', kv('the bike is blue and old'));
        const now = await f.engine.putByKey(user, o, 'bike', kv('the bike is now painted green'));
        const later = new Date(f.clock.now().getTime() + 86_400_000).toISOString();
        const future = await userEpisode(f, o, 'From tomorrow the shop opens at eight', {
          validFrom: later,
        });
        const short = await userEpisode(f, o, 'The repair voucher is valid for one hour only', {
          ttlSeconds: 3600,
        });
        f.clock.advance(3600 * 1000 + 1);
        const ids: string[] = [];
        let after: string | undefined;
        let pages = 0;
        for (;;) {
          const page = await f.engine.exportPage(user, o, {
            ...(after ? { after } : {}),
            limit: 3,
          });
          ids.push(...page.memories.map((m) => m.id));
          pages++;
          if (page.next === null) break;
          after = page.next;
        }
        // Held: current and future-valid; not the superseded version, not the expired one.
        expect(ids.sort()).toEqual(
          [...kept.map((m) => m.id), now.memory.id, future.memory.id].sort(),
        );
        expect(ids).not.toContain(old.memory.id);
        expect(ids).not.toContain(short.memory.id);
        expect(pages).toBeGreaterThanOrEqual(3);
        const reads = (await f.engine.auditList(operator, { ownerId: o })).filter(
          (e) => e.type === 'read',
        );
        expect(reads.every((e) => e.details.export === true)).toBe(true);
        expect(reads.flatMap((e) => e.memoryIds).sort()).toEqual([...ids].sort());
        await expectCode(f.engine.exportPage(tool, o), 'forbidden_role');
      }));

    it('verifies an intact chain and detects an edited event', () =>
      onOwnStore(async (f) => {
        const o = f.owner();
        const m = await userEpisode(f, o, 'Taylor volunteers at the animal shelter on Saturdays');
        await f.engine.recall(user, o, 'animal shelter');
        await f.engine.forget(user, o, [m.memory.id]);
        const ok = await f.engine.auditVerify(operator);
        expect(ok.ok).toBe(true);
        const events = await f.engine.auditList(operator, { ownerId: o });
        expect(events.map((e) => e.type)).toEqual(['write', 'read', 'delete']);
        // Content never lands in the audit log.
        expect(JSON.stringify(events)).not.toContain('animal shelter');
        const restore = await f.sut.tamperAuditEvent(events[0]!.seq);
        const broken = await f.engine.auditVerify(operator);
        await restore();
        expect(broken.ok).toBe(false);
        expect(broken.brokenAt).toBe(events[0]!.seq);
        expect((await f.engine.auditVerify(operator)).ok).toBe(true);
      }));
  });
}
