// The graph reads an explorer draws and the caller's own reads: a memory's
// neighbours (its sources, what grew out of it, its versions, the relations
// it asserts), an owner's entity graph as live memories assert it, and the
// owners a caller may list. Graphs load in graphology as a UI loads them;
// nothing crosses owners, and a caller scoped to some owners hears of no
// other.
import { randomUUID } from 'node:crypto';
import { MultiDirectedGraph } from 'graphology';
import { expect, it } from 'vitest';
import type { Caller, RelationInput, SerializedGraph } from '@keepgraph/core';
import {
  agent,
  conformanceSuite,
  derived,
  expectCode,
  kv,
  operator,
  user,
  userEpisode,
} from '../harness.ts';

const AGAINST_RED_EYES: RelationInput = {
  subject: { name: 'Alex', type: 'person' },
  type: 'PREFERS_AGAINST',
  object: { name: 'Red-eye  flights', type: 'thing' },
  reason: 'arrives exhausted after night flights',
};
const ALEX = 'entity:alex';
const RED_EYES = 'entity:red-eye flights';
const RELATION_KEY = `${ALEX}-PREFERS_AGAINST->${RED_EYES}`;

/** The graph loads as a UI loads it, and its keys are unique. */
function loadable(g: SerializedGraph<boolean>): MultiDirectedGraph {
  expect(new Set(g.nodes.map((n) => n.key)).size).toBe(g.nodes.length);
  expect(new Set(g.edges.map((e) => e.key)).size).toBe(g.edges.length);
  return MultiDirectedGraph.from(g as never);
}

const edge = (g: SerializedGraph<boolean>, key: string) => g.edges.find((e) => e.key === key);

export const graphReadsSuite = conformanceSuite(
  'graph reads: neighbours and the entity graph',
  (f) => {
    it("shows a rule's episode source, what was derived from it, and the relation it asserts", async () => {
      const o = f.owner();
      const ep = await userEpisode(
        f,
        o,
        'Alex said the last red-eye flight left him exhausted for two days',
      );
      const other = await userEpisode(f, o, 'Alex never books night flights any more', {
        relations: [{ ...AGAINST_RED_EYES, reason: 'he said so himself' }],
      });
      const rule = await f.engine.remember(
        agent,
        o,
        derived('Avoid booking red-eye flights for Alex', [ep.memory.id], {
          kind: 'rule',
          relations: [AGAINST_RED_EYES],
        }),
      );
      const child = await f.engine.remember(
        agent,
        o,
        derived('Travel rules for Alex: daytime flights only', [rule.memory.id]),
      );

      const g = await f.engine.neighbours(user, o, rule.memory.id);
      const graph = loadable(g);
      expect(g.attributes).toEqual({ root: rule.memory.id, ownerId: o, truncated: false });
      expect(g.options).toEqual({ type: 'directed', multi: true, allowSelfLoops: false });
      expect(graph.order).toBe(g.nodes.length);

      const node = (key: string) => g.nodes.find((n) => n.key === key)?.attributes;
      const m = rule.memory;
      expect(node(m.id)).toEqual({
        nodeType: 'memory',
        kind: 'rule',
        text: m.text,
        authority: 'agent_inferred',
        origin: m.origin,
        sourceOrigins: m.sourceOrigins,
        sourceOriginCount: m.sourceOrigins.length,
        createdAt: m.createdAt,
        expiresAt: m.expiresAt,
        contentHash: m.contentHash,
        supersededBy: null,
        conflict: false,
      });
      expect(node(ep.memory.id)).toMatchObject({ nodeType: 'memory', kind: 'episode' });
      expect(node(child.memory.id)).toMatchObject({ nodeType: 'memory', kind: 'summary' });
      // The other assertion's memory is evidence on the edge, not a neighbour.
      expect(node(other.memory.id)).toBeUndefined();
      expect(node(ALEX)).toEqual({ nodeType: 'entity', name: 'Alex', entityType: 'person' });
      expect(node(RED_EYES)).toEqual({
        nodeType: 'entity',
        name: 'Red-eye  flights',
        entityType: 'thing',
      });

      expect(edge(g, `${m.id}->${ep.memory.id}`)).toMatchObject({
        source: m.id,
        target: ep.memory.id,
        attributes: { type: 'DERIVED_FROM' },
      });
      expect(edge(g, `${child.memory.id}->${m.id}`)).toMatchObject({
        source: child.memory.id,
        target: m.id,
        attributes: { type: 'DERIVED_FROM' },
      });
      expect(edge(g, RELATION_KEY)).toEqual({
        key: RELATION_KEY,
        source: ALEX,
        target: RED_EYES,
        attributes: {
          type: 'PREFERS_AGAINST',
          reasons: ['arrives exhausted after night flights', 'he said so himself'],
          assertedBy: [m.id, other.memory.id].sort(),
        },
      });
      for (const e of [ALEX, RED_EYES])
        expect(edge(g, `${m.id}-ASSERTS->${e}`)).toMatchObject({
          source: m.id,
          target: e,
          attributes: { type: 'ASSERTS' },
        });
      expect(g.edges).toHaveLength(5);

      // The episode's neighbourhood: the rule grew out of it; it asserts nothing.
      const fromEpisode = await f.engine.neighbours(user, o, ep.memory.id);
      loadable(fromEpisode);
      expect(fromEpisode.nodes.map((n) => n.key).sort()).toEqual([ep.memory.id, m.id].sort());
      expect(fromEpisode.edges.map((e) => e.key)).toEqual([`${m.id}->${ep.memory.id}`]);
    });

    it('shows the version a memory replaced and the one that replaced it', async () => {
      const o = f.owner();
      const v1 = await f.engine.putByKey(user, o, 'seat', kv('Alex prefers aisle seats', 'S7'));
      const v2 = await f.engine.putByKey(
        user,
        o,
        'seat',
        kv('Alex prefers window seats now', 'S7'),
      );
      const old = await f.engine.neighbours(user, o, v1.memory.id);
      loadable(old);
      expect(old.nodes.find((n) => n.key === v1.memory.id)?.attributes.supersededBy).toBe(
        v2.memory.id,
      );
      expect(edge(old, `${v2.memory.id}=>${v1.memory.id}`)).toMatchObject({
        source: v2.memory.id,
        target: v1.memory.id,
        attributes: { type: 'SUPERSEDES' },
      });
      const current = await f.engine.neighbours(user, o, v2.memory.id);
      expect(current.edges.map((e) => e.key)).toEqual([`${v2.memory.id}=>${v1.memory.id}`]);
    });

    it('answers not_found for an unknown id and for another owner’s, and refuses an owner out of scope', async () => {
      const o = f.owner();
      const theirs = f.owner();
      const m = await userEpisode(f, theirs, 'Another owner keeps bees');
      await expectCode(f.engine.neighbours(user, o, randomUUID()), 'not_found');
      await expectCode(f.engine.neighbours(user, o, m.memory.id), 'not_found');
      const scoped: Caller = { role: 'analyst', owners: [o], principal: 'key:scoped' };
      await expectCode(f.engine.neighbours(scoped, theirs, m.memory.id), 'owner_out_of_scope');
      await expectCode(f.engine.entityGraph(scoped, theirs), 'owner_out_of_scope');
      await expectCode(f.engine.neighbours(user, o, '  '), 'invalid_input');
    });

    it('draws the entity graph as live memories assert it, best attested first, cut at the limit', async () => {
      const o = f.owner();
      const theirs = f.owner();
      await userEpisode(f, theirs, 'Another owner dislikes trains', {
        relations: [
          { subject: { name: 'Sam' }, type: 'PREFERS_AGAINST', object: { name: 'trains' } },
        ],
      });
      const a = await userEpisode(f, o, 'Alex avoids red-eye flights', {
        relations: [AGAINST_RED_EYES],
      });
      const b = await userEpisode(f, o, 'Alex really does avoid night flights', {
        relations: [{ ...AGAINST_RED_EYES, object: { name: 'red-eye flights', type: 'thing' } }],
      });
      const lisbon = await userEpisode(f, o, 'Alex lives in Lisbon', {
        relations: [
          {
            subject: { name: 'Alex', type: 'person' },
            type: 'LOCATED_IN',
            object: { name: 'Lisbon', type: 'place' },
            reason: 'he said so',
          },
        ],
      });
      // A superseded assertion no longer counts...
      await f.engine.putByKey(user, o, 'diet', {
        text: 'Alex is vegetarian',
        origin: { sessionId: 'S8' },
        relations: [
          { subject: { name: 'Alex', type: 'person' }, type: 'HAS', object: { name: 'diet' } },
        ],
      });
      await f.engine.putByKey(user, o, 'diet', kv('Alex eats fish again', 'S8'));
      // ...nor one that expires before the sweeper runs.
      await userEpisode(f, o, 'Alex uses a paper diary', {
        ttlSeconds: 3600,
        relations: [
          { subject: { name: 'Alex', type: 'person' }, type: 'USES', object: { name: 'diary' } },
        ],
      });
      f.clock.advance(2 * 3600 * 1000);

      const g = await f.engine.entityGraph(user, o);
      loadable(g);
      expect(g.attributes).toEqual({ ownerId: o, truncated: false });
      expect(g.options).toEqual({ type: 'directed', multi: true, allowSelfLoops: false });
      expect(g.edges.map((e) => e.key)).toEqual([
        RELATION_KEY,
        `${ALEX}-LOCATED_IN->entity:lisbon`,
      ]);
      expect(g.edges[0]).toEqual({
        key: RELATION_KEY,
        source: ALEX,
        target: RED_EYES,
        attributes: {
          type: 'PREFERS_AGAINST',
          reasons: ['arrives exhausted after night flights'],
          assertedBy: [a.memory.id, b.memory.id].sort(),
        },
      });
      expect(g.edges[1]!.attributes).toEqual({
        type: 'LOCATED_IN',
        reasons: ['he said so'],
        assertedBy: [lisbon.memory.id],
      });
      expect(g.nodes.map((n) => n.key).sort()).toEqual([ALEX, RED_EYES, 'entity:lisbon'].sort());
      expect(g.nodes.find((n) => n.key === 'entity:lisbon')?.attributes).toEqual({
        nodeType: 'entity',
        name: 'Lisbon',
        entityType: 'place',
      });
      expect(JSON.stringify(g)).not.toMatch(/trains|diary|"diet"/);

      const cut = await f.engine.entityGraph(user, o, { limit: 1 });
      loadable(cut);
      expect(cut.attributes).toEqual({ ownerId: o, truncated: true });
      expect(cut.edges.map((e) => e.key)).toEqual([RELATION_KEY]);
      expect(cut.nodes.map((n) => n.key).sort()).toEqual([ALEX, RED_EYES].sort());

      expect((await f.engine.entityGraph(user, f.owner())).edges).toEqual([]);
      for (const bad of [{ limit: 0 }, { limit: 5001 }, { limit: 1.5 }, { depth: 2 }])
        await expectCode(f.engine.entityGraph(user, o, bad as never), 'invalid_input');
    });
  },
);

export const ownReadsSuite = conformanceSuite(
  "the caller's own reads: whoami and the owners it may list",
  (f) => {
    it('lists every owner to all-owners callers, its own to a scoped analyst, none to a user', async () => {
      const run = `graph-${randomUUID().slice(0, 8)}`;
      const [a, b, c] = [`${run}-a`, `${run}-b`, `${run}-c`];
      await userEpisode(f, a, 'Owner a likes tea');
      await userEpisode(f, b, 'Owner b likes coffee');
      await userEpisode(f, b, 'Owner b also likes cocoa');
      await userEpisode(f, c, 'Owner c likes water');

      const first = await f.engine.listOwners(operator, { after: run, limit: 2 });
      expect(first).toEqual({
        owners: [
          { ownerId: a, memories: 1 },
          { ownerId: b, memories: 2 },
        ],
        next: b,
      });
      const second = await f.engine.listOwners(operator, { after: first.next!, limit: 2 });
      expect(second.owners[0]).toEqual({ ownerId: c, memories: 1 });
      const analystAll: Caller = { role: 'analyst', owners: 'all', principal: 'key:all' };
      expect((await f.engine.listOwners(analystAll, { after: run, limit: 1 })).owners).toEqual([
        { ownerId: a, memories: 1 },
      ]);

      // A scoped analyst: its own owners that hold memories, never another.
      const scoped: Caller = {
        role: 'analyst',
        owners: [c, a, `${run}-empty`],
        principal: 'key:scoped',
      };
      expect(await f.engine.listOwners(scoped)).toEqual({
        owners: [
          { ownerId: a, memories: 1 },
          { ownerId: c, memories: 1 },
        ],
        next: null,
      });
      expect(await f.engine.listOwners(scoped, { limit: 1 })).toEqual({
        owners: [{ ownerId: a, memories: 1 }],
        next: a,
      });
      expect(await f.engine.listOwners(scoped, { after: a, limit: 1 })).toEqual({
        owners: [{ ownerId: c, memories: 1 }],
        next: null,
      });

      await expectCode(f.engine.listOwners(user), 'forbidden_role');
      const scopedUser: Caller = { role: 'user', owners: [a], principal: 'key:u' };
      await expectCode(f.engine.listOwners(scopedUser), 'forbidden_role');
      for (const bad of [{ limit: 0 }, { limit: 1001 }, { after: ' x' }, { owners: 'all' }])
        await expectCode(f.engine.listOwners(operator, bad as never), 'invalid_input');
    });

    it('says who the caller is: principal, role, owners and expiry', async () => {
      const o = f.owner();
      const made = await f.engine.createKey(operator, {
        name: 'whoami',
        role: 'agent',
        owners: [o],
        expiresIn: '1h',
      });
      const scoped: Caller = {
        role: 'agent',
        owners: [o],
        principal: `key:${made.id}`,
        expiresAt: made.expiresAt,
      };
      expect(await f.engine.whoami(scoped)).toEqual({
        principal: `key:${made.id}`,
        role: 'agent',
        owners: [o],
        expiresAt: made.expiresAt,
      });
      expect(await f.engine.whoami(operator)).toEqual({
        principal: operator.principal,
        role: 'operator',
        owners: 'all',
        expiresAt: null,
      });
    });
  },
);
