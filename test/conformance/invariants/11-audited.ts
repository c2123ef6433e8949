// Invariant 11, audited: append-only, hash-chained, verifiable; ids and
// hashes, never deleted content.
import { describe, expect, it } from 'vitest';
import { episode, makeFixture, operator, user, type ConformanceOptions } from '../harness.ts';

export function auditedSuite(opts: ConformanceOptions): void {
  describe('invariant 11: audited', () => {
    it('verifies an intact chain and detects an edited event', async () => {
      const f = await makeFixture(opts, await opts.makeStore());
      try {
        const o = f.owner();
        const m = await f.engine.remember(user, o, episode('Taylor volunteers at the animal shelter on Saturdays'));
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
      } finally {
        await f.sut.close();
      }
    });
  });
}
