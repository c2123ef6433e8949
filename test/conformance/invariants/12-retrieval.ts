// Retrieval per DESIGN.md, on the real embedding model: paraphrases found,
// fused scores explained, topK and minScore honoured, reads logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derived, episode, makeFixture, operator, user, type ConformanceOptions, type Fixture } from '../harness.ts';

const DISTRACTORS = [
  'We watched a documentary about deep sea creatures on Sunday',
  'The quarterly report is due at the end of the month',
  'My sister is getting married in Lisbon next spring',
  'I replaced the bike tyres after the last race',
  'The new espresso machine makes a very loud noise',
  'Our neighbour plays the drums late at night',
  'I started reading a novel about a lighthouse keeper',
  'The team retrospective was moved to Thursday afternoon',
];

export function retrievalSuite(opts: ConformanceOptions): void {
  describe('retrieval: return little, but right', () => {
    let f: Fixture;
    let o: string;
    let target: string;
    beforeAll(async () => {
      f = await makeFixture(opts, await opts.makeStore());
      o = f.owner();
      for (const t of DISTRACTORS) await f.engine.remember(user, o, episode(t));
      target = (await f.engine.remember(user, o, episode('I can not eat gluten, it makes me really sick'))).memory.id;
    });
    afterAll(() => f.sut.close());

    it('finds a paraphrase by meaning (no shared keywords) and ranks it first', async () => {
      const r = await f.engine.recall(user, o, 'dietary restrictions wheat bread intolerance');
      expect(r.results[0]!.memory.id).toBe(target);
      expect(r.results[0]!.breakdown.ranks.vector).toBe(1);
    });

    it('returns at most topK (default 5) with origin, authority, breakdown and derivedFrom', async () => {
      const r = await f.engine.recall(user, o, 'what happened last week');
      expect(r.results.length).toBeLessThanOrEqual(5);
      for (const h of r.results) {
        expect(h.origin.sessionId).toBe('S1');
        expect(h.authority).toBe('user');
        expect(h.derivedFrom).toEqual([]);
        expect(h.score).toBeGreaterThan(0);
        expect(h.score).toBeLessThanOrEqual(1);
        expect(h.breakdown.final).toBe(h.score);
      }
      const more = await f.engine.recall(user, o, 'what happened last week', { topK: 8 });
      expect(more.results.length).toBe(8);
    });

    it('cuts results under minScore', async () => {
      const all = await f.engine.recall(user, o, 'gluten', { topK: 9 });
      const cut = all.results[1]!.score + 1e-9;
      const r = await f.engine.recall(user, o, 'gluten', { topK: 9, minScore: cut });
      expect(r.results.map((h) => h.memory.id)).toEqual([all.results[0]!.memory.id]);
    });

    it('prefers one derived memory over the sources it summarises', async () => {
      const p = f.owner();
      const a = await f.engine.remember(user, p, episode('Dana booked an aisle seat for the flight to Tokyo'));
      const b = await f.engine.remember(user, p, episode('Dana asked for an aisle seat on the flight to Denver'));
      const s = await f.engine.remember(user, p, derived('Dana prefers aisle seats on flights', [a.memory.id, b.memory.id], { kind: 'rule' }));
      const r = await f.engine.recall(user, p, 'Which seat does Dana like on planes?');
      const ids = r.results.map((h) => h.memory.id);
      expect(ids[0]).toBe(s.memory.id);
      expect(ids).not.toContain(a.memory.id);
      expect(ids).not.toContain(b.memory.id);
      expect(r.results[0]!.derivedFrom).toEqual([a.memory.id, b.memory.id]);
    });

    it('logs every read served', async () => {
      const r = await f.engine.recall({ ...user, sessionId: 'sess-read' }, o, 'gluten');
      const reads = (await f.engine.auditList(operator, { ownerId: o })).filter((e) => e.type === 'read');
      const last = reads[reads.length - 1]!;
      expect(last.memoryIds).toEqual(r.results.map((h) => h.memory.id));
      expect(last.details.requestId).toBe(r.requestId);
      expect(last.details.sessionId).toBe('sess-read');
    });
  });
}
