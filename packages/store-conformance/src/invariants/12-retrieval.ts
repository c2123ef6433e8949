// Retrieval per DESIGN.md, on the real embedding model: paraphrases found,
// fused scores explained, topK and minScore honoured, reads logged.
import { RECALL_RECIPES } from '@keepgraph/core';
import { beforeAll, expect, it } from 'vitest';
import { conformanceSuite, derived, episode, operator, user, userEpisode } from '../harness.ts';

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

export const retrievalSuite = conformanceSuite(
  'retrieval: return little, but right',
  { meaning: true },
  (f) => {
    let o: string;
    let target: string;
    beforeAll(async () => {
      o = f.owner();
      for (const t of DISTRACTORS) await userEpisode(f, o, t);
      target = (await userEpisode(f, o, 'I can not eat gluten, it makes me really sick')).memory.id;
    });

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

    it('a derived memory is a key to its sources: it comes first, its sources follow via it', async () => {
      const p = f.owner();
      // The sources share no word with the query and little meaning: only
      // the rule derived from them leads there.
      const a = await userEpisode(f, p, 'Booked 14C on the Tokyo trip');
      const b = await userEpisode(f, p, 'Asked the agent for 22D going to Denver');
      for (const t of DISTRACTORS) await userEpisode(f, p, t);
      const s = await f.engine.remember(
        user,
        p,
        derived('Dana prefers aisle seats on planes', [a.memory.id, b.memory.id], {
          kind: 'rule',
        }),
      );
      const r = await f.engine.recall(user, p, 'Which seat does Dana like on planes?');
      const ids = r.results.map((h) => h.memory.id);
      expect(ids[0]).toBe(s.memory.id);
      expect(r.results[0]!.derivedFrom).toEqual([a.memory.id, b.memory.id]);
      expect(r.results[0]!.via).toEqual([]);
      // Not hidden behind the rule: returned next, saying through which memory.
      expect(new Set(ids.slice(1, 3))).toEqual(new Set([a.memory.id, b.memory.id]));
      for (const h of r.results.slice(1, 3)) {
        expect(h.via).toEqual([s.memory.id]);
        // The rule lent them 0.9 of its score: they come right after it.
        expect(h.breakdown.raw.via).toBe(r.results[0]!.score);
        expect(h.score).toBeCloseTo(r.results[0]!.score * RECALL_RECIPES.default.sourceLend);
      }
    });

    it('a derived memory with more sources than a result may stand for is a key only', async () => {
      const p = f.owner();
      const sources = [];
      for (const [i, city] of ['Tokyo', 'Denver', 'Oslo', 'Lima', 'Cairo'].entries())
        sources.push((await userEpisode(f, p, `Booked ${10 + i}C to ${city}`)).memory.id);
      for (const t of DISTRACTORS) await userEpisode(f, p, t);
      const s = await f.engine.remember(
        user,
        p,
        derived('Dana always books aisle seats on planes', sources, { kind: 'summary' }),
      );
      const r = await f.engine.recall(user, p, 'Which seat does Dana like on planes?', {
        topK: 10,
      });
      const ids = r.results.map((h) => h.memory.id);
      expect(ids).not.toContain(s.memory.id);
      const { maxSourcesPerDerived } = RECALL_RECIPES.default;
      const reached = r.results.filter((h) => h.via.includes(s.memory.id));
      expect(reached).toHaveLength(maxSourcesPerDerived);
      // why shows the chain: the summary's lineage down to the sources it led to.
      const w = await f.engine.why(user, p, 'Which seat does Dana like on planes?', { topK: 10 });
      const chain = w.lineage[s.memory.id]!;
      expect(chain.attributes.root).toBe(s.memory.id);
      for (const h of w.results.filter((x) => x.via.includes(s.memory.id)))
        expect(chain.edges).toContainEqual(
          expect.objectContaining({ source: s.memory.id, target: h.memory.id }),
        );
    });

    it('brings the reply of a question turn, which shares no word with the query', async () => {
      const p = f.owner();
      const inSession = (text: string, sessionId: string, speaker: string) =>
        episode(text, { origin: { sessionId, turn: `${sessionId}-${text.length}`, speaker } });
      for (const t of DISTRACTORS) await f.engine.remember(user, p, inSession(t, 'S-other', 'Sam'));
      await f.engine.remember(
        user,
        p,
        inSession('We got the keys to the flat on Friday', 'S-talk', 'Mel'),
      );
      const question = await f.engine.remember(
        user,
        p,
        inSession('How long have you two been married?', 'S-talk', 'Caro'),
      );
      const reply = await f.engine.remember(
        user,
        p,
        inSession('Five years already, time flies!', 'S-talk', 'Mel'),
      );
      const r = await f.engine.recall(user, p, 'How long has Mel been married?', { topK: 3 });
      const hit = (id: string) => r.results.find((h) => h.memory.id === id);
      const asked = hit(question.memory.id);
      const answered = hit(reply.memory.id);
      expect(asked).toBeDefined();
      // The reply is there on the question turn's score, and says so.
      expect(answered?.breakdown.raw.reply).toBe(asked!.breakdown.fused);
      expect(answered!.breakdown.fused).toBeCloseTo(
        asked!.breakdown.fused * RECALL_RECIPES.default.replyWeight,
        12,
      );
    });

    it('finds the next and the previous episode of a session in write order, never across sessions or owners', async () => {
      const p = f.owner();
      const q = f.owner();
      const inSession = (owner: string, text: string, sessionId = 'S-order') =>
        userEpisode(f, owner, text, { origin: { sessionId, turn: text } });
      const a = await inSession(p, 'first turn of the talk');
      await inSession(p, 'a turn of another session', 'S-else');
      await inSession(q, 'another owner writes in a session of the same name');
      const b = await inSession(p, 'second turn of the talk');
      const c = await inSession(p, 'third turn of the talk');
      const loose = await userEpisode(f, p, 'no session at all', {
        origin: { tool: { name: 't' } },
      });
      const store = f.store;
      const next = await store.nextInSession(p, [
        a.memory.id,
        b.memory.id,
        c.memory.id,
        loose.memory.id,
      ]);
      const pairs = new Map(next.map((n) => [n.after, n.memory.id]));
      expect(pairs).toEqual(
        new Map([
          [a.memory.id, b.memory.id],
          [b.memory.id, c.memory.id],
        ]),
      );
      expect(await store.nextInSession(q, [a.memory.id])).toEqual([]);
      const previous = await store.previousInSession(p, [
        a.memory.id,
        b.memory.id,
        c.memory.id,
        loose.memory.id,
      ]);
      expect(new Map(previous.map((n) => [n.before, n.memory.id]))).toEqual(
        new Map([
          [b.memory.id, a.memory.id],
          [c.memory.id, b.memory.id],
        ]),
      );
      expect(await store.previousInSession(q, [c.memory.id])).toEqual([]);
      await f.engine.forget(user, p, [b.memory.id]);
      const after = await store.nextInSession(p, [a.memory.id]);
      expect(after.map((n) => n.memory.id)).toEqual([c.memory.id]);
      expect(after[0]!.memory.text).toBe('third turn of the talk');
      const before = await store.previousInSession(p, [c.memory.id]);
      expect(before.map((n) => n.memory.text)).toEqual(['first turn of the talk']);
    });

    it("lists the direct children of several memories in one call, only the owner's", async () => {
      const p = f.owner();
      const a = await userEpisode(f, p, 'Dana flies to Tokyo in May');
      const b = await userEpisode(f, p, 'Dana flies to Denver in June');
      const s1 = await f.engine.remember(
        user,
        p,
        derived('Dana travels a lot', [a.memory.id, b.memory.id]),
      );
      const s2 = await f.engine.remember(user, p, derived('Dana likes Tokyo', [a.memory.id]));
      await f.engine.remember(user, p, derived('Dana likes travel summaries', [s1.memory.id]));
      const edges = await f.store.derivedFrom(p, [a.memory.id, b.memory.id, 'no-such-id']);
      const key = (e: { source: string; child: string }) => `${e.source}>${e.child}`;
      expect(edges.map(key).sort()).toEqual(
        [
          `${a.memory.id}>${s1.memory.id}`,
          `${b.memory.id}>${s1.memory.id}`,
          `${a.memory.id}>${s2.memory.id}`,
        ].sort(),
      );
      expect(await f.store.derivedFrom(f.owner(), [a.memory.id])).toEqual([]);
    });

    it('logs every read that served memories, with the session as a keyed hash; an empty read is not logged', async () => {
      const r = await f.engine.recall({ ...user, sessionId: 'sess-read' }, o, 'gluten');
      const reads = (await f.engine.auditList(operator, { ownerId: o })).filter(
        (e) => e.type === 'read',
      );
      const last = reads[reads.length - 1]!;
      expect(last.memoryIds).toEqual(r.results.map((h) => h.memory.id));
      expect(last.details.requestId).toBe(r.requestId);
      expect(last.details.sessionIdHash).toBe(f.engine.deps.keyedHash('sess-read'));
      expect(JSON.stringify(last)).not.toContain('sess-read');
      const nobody = `${o}-nobody`;
      const none = await f.engine.recall(user, nobody, 'gluten');
      expect(none.results).toEqual([]);
      expect(await f.engine.auditList(operator, { ownerId: nobody })).toEqual([]);
    });
  },
);
