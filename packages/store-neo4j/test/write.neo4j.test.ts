// MemoryStore.write on Neo4j: all or nothing (with its audit events), the
// relation edges and the hash chain under concurrency, and Cypher
// injection: hostile text in every field is stored verbatim and changes
// nothing else.
import { sealAuditEvent } from '@keepgraph/core';
import type { AuditEvent } from '@keepgraph/core';
import { describe, expect, it } from 'vitest';
import type { Neo4jMemoryStore } from '../src/index.ts';
import {
  NOW,
  auditEvent,
  batchOf,
  cypherRows,
  forgetRequest,
  makeMemory,
  n,
  newId,
  newOwner,
  randomUnitVector,
  storeForFile,
} from './helpers.ts';

let store: Neo4jMemoryStore;
storeForFile((opened) => ({ store } = opened));

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string }).code;
  }
  throw new Error('expected a rejection');
}

/** Everything one owner has in the graph: nodes with its ownerId or its Owner node, and their edges. */
async function ownerFootprint(ownerId: string): Promise<{ nodes: number; edges: number }> {
  const [row] = await cypherRows(
    store,
    `MATCH (x) WHERE x.ownerId = $o OR (x:Owner AND x.id = $o)
     OPTIONAL MATCH (x)-[r]-()
     RETURN count(DISTINCT x) AS nodes, count(DISTINCT r) AS edges`,
    { o: ownerId },
  );
  return { nodes: n(row?.nodes), edges: n(row?.edges) };
}

describe('write (neo4j)', () => {
  it('a batch whose last item fails leaves nothing behind, not even its audit event', async () => {
    const o = newOwner();
    const good = makeMemory(o, { about: [{ name: 'Alex', type: 'person' }] });
    const bad = makeMemory(o, { derivedFrom: ['no-such-memory'] });
    const err = await codeOf(store.write(batchOf([good, bad])));
    expect(err).toBe('invalid_input');
    expect(await store.getById(o, good.id)).toBeNull();
    expect(await store.listAudit({ ownerId: o, limit: 10 })).toEqual([]);
    expect(await ownerFootprint(o)).toEqual({ nodes: 0, edges: 0 });
  });

  it('a duplicate id fails the whole batch with conflict', async () => {
    const o = newOwner();
    const first = makeMemory(o);
    await store.write(batchOf([first]));
    const other = makeMemory(o);
    expect(await codeOf(store.write(batchOf([other, { ...makeMemory(o), id: first.id }])))).toBe(
      'conflict',
    );
    expect(await store.getById(o, other.id)).toBeNull();
    expect(await store.countMemories(o)).toBe(1);
    expect(await store.listAudit({ ownerId: o, limit: 10 })).toHaveLength(1);
  });

  it('two memories of one batch asserting the same relation share one edge', async () => {
    const o = newOwner();
    const rel = {
      subject: { name: 'Alex', type: 'person' },
      type: 'PREFERS_AGAINST',
      object: { name: 'Finance Clients', type: 'segment' },
    };
    const a = makeMemory(o, { relations: [{ ...rel, reason: 'first reason' }] });
    const b = makeMemory(o, {
      relations: [{ ...rel, subject: { name: '  alex ', type: 'person' } }],
    });
    await store.write(batchOf([a, b]));
    const edges = await store.relations(o);
    expect(edges).toHaveLength(1);
    expect(edges[0]!.assertedBy).toEqual([a.id, b.id].sort());
    expect(edges[0]!.reasons).toEqual(['first reason']);
    expect(edges[0]!.subject).toEqual({ name: 'Alex', type: 'person' });
  });

  it('concurrent writers keep one unbroken hash chain', async () => {
    const owners = Array.from({ length: 8 }, () => newOwner());
    await Promise.all(owners.map((o) => store.write(batchOf([makeMemory(o), makeMemory(o)]))));
    const mine: AuditEvent[] = [];
    for (const o of owners) mine.push(...(await store.listAudit({ ownerId: o, limit: 10 })));
    const seqs = mine.map((e) => e.seq).sort((a, b) => a - b);
    const range = await store.listAudit({
      afterSeq: seqs[0]! - 1,
      limit: seqs.at(-1)! - seqs[0]! + 1,
    });
    expect(range.map((e) => e.seq)).toEqual(range.map((_, i) => seqs[0]! + i));
    for (let i = 1; i < range.length; i++) expect(range[i]!.prevHash).toBe(range[i - 1]!.hash);
    for (const e of range) {
      const { seq, prevHash, hash, ...input } = e;
      expect(sealAuditEvent(input, seq, prevHash).hash).toBe(hash);
    }
  });

  describe('Cypher injection', () => {
    const payloads = [
      `it's`,
      `say "hi"`,
      'back`tick`',
      '})',
      `'}) MATCH (n) DETACH DELETE n //`,
      '"}) MATCH (n) DETACH DELETE n RETURN 1 //',
      '`) DETACH DELETE n //',
      'MATCH (n) DETACH DELETE n',
      '\\u0027 \\" {a: 1} $ownerId ${x}',
      'ünïcödé — 日本語 🙂 \u200b',
    ];
    const hostile = payloads.join(' | ');

    it('every field is stored verbatim, findable, and nothing else changes', async () => {
      const sentinel = newOwner();
      const s1 = makeMemory(sentinel, { about: [{ name: 'Sentinel', type: 'thing' }] });
      const s2 = makeMemory(sentinel, {
        derivedFrom: [s1.id],
        relations: [
          {
            subject: { name: 'Sentinel', type: 'thing' },
            type: 'RELATED_TO',
            object: { name: 'Guard', type: 'thing' },
          },
        ],
      });
      await store.write(batchOf([s1, s2]));
      const sentinelBefore = await ownerFootprint(sentinel);
      const [totalBefore] = await cypherRows(store, 'MATCH (x) RETURN count(x) AS n');

      const o = `${hostile} owner-${newId()}`;
      const m = makeMemory(o, {
        text: `Remember ${hostile} quarkfizz`,
        key: `key ${hostile}`,
        tags: payloads,
        origin: {
          sessionId: `session ${hostile}`,
          turn: `turn ${hostile}`,
          messageId: `msg ${hostile}`,
          tool: { name: `tool ${hostile}`, callId: `call ${hostile}` },
          source: { kind: 'url', uri: `https://example.com/?q=${hostile}` },
          observedAt: NOW,
          writtenBy: `writer ${hostile}`,
        },
        about: [{ name: `entity ${hostile}`, type: `type ${hostile}` }],
        relations: [
          {
            subject: { name: `subject ${hostile}`, type: 'person' },
            type: 'PREFERS_AGAINST',
            object: { name: `object ${hostile}`, type: 'thing' },
            reason: `reason ${hostile}`,
          },
        ],
        redactions: [`redaction ${hostile}`],
      });
      const message = {
        ownerId: o,
        sessionId: `session ${hostile}`,
        role: 'user' as const,
        text: `message ${hostile}`,
        at: NOW,
        expiresAt: '2030-01-01T00:00:00.000Z',
        memoryId: m.id,
        writer: { principal: `key ${hostile}`, role: 'tool' as const },
      };
      const event = {
        ...auditEvent('write', o, [m.id]),
        actor: `actor ${hostile}`,
        reason: hostile,
        details: { hostile },
      };
      await store.write({
        memories: [{ memory: m, embedding: randomUnitVector() }],
        supersede: [],
        sessionMessages: [message],
        audit: [event],
      });

      expect(await store.getById(o, m.id)).toEqual(m);
      expect(await store.getByKey(o, `key ${hostile}`)).toEqual([m]);
      expect(await store.findBySource(o, { uri: `https://example.com/?q=${hostile}` })).toEqual([
        m.id,
      ]);
      expect(await store.findBySource(o, { tool: `tool ${hostile}` })).toEqual([m.id]);
      const [edge] = await store.relations(o);
      expect(edge).toMatchObject({
        type: 'PREFERS_AGAINST',
        reasons: [`reason ${hostile}`],
        assertedBy: [m.id],
      });
      expect(edge!.subject.name).toBe(`subject ${hostile}`);
      const opts = { limit: 5, now: NOW };
      expect((await store.searchText(o, `quarkfizz ${hostile}`, opts)).map((h) => h.id)).toEqual([
        m.id,
      ]);
      expect((await store.searchText(o, hostile, opts)).map((h) => h.id)).toEqual([m.id]);
      expect((await store.searchEntities(o, [`ENTITY ${hostile}`], opts)).map((h) => h.id)).toEqual(
        [m.id],
      );
      expect((await store.searchEntities(o, [`object ${hostile}`], opts)).map((h) => h.id)).toEqual(
        [m.id],
      );
      const msgs = await store.sessionMessages(o, `session ${hostile}`, { limit: 10, now: NOW });
      expect(msgs).toEqual([{ ...message, seq: expect.any(Number) }]);
      const [audited] = await store.listAudit({ ownerId: o, limit: 5 });
      expect(audited).toMatchObject({
        actor: `actor ${hostile}`,
        reason: hostile,
        details: { hostile },
      });
      expect(await store.listOwners()).toContain(o);

      // Nothing else changed: the sentinel is whole, and the database only grew.
      expect(await ownerFootprint(sentinel)).toEqual(sentinelBefore);
      expect(await store.getById(sentinel, s2.id)).toEqual(s2);
      const [totalAfter] = await cypherRows(store, 'MATCH (x) RETURN count(x) AS n');
      expect(n(totalAfter?.n)).toBeGreaterThan(n(totalBefore?.n));

      // And the hostile owner's data goes as a whole.
      const receipt = await store.deleteCascade(forgetRequest(o, [m.id]));
      expect(receipt.deletedMemoryIds).toEqual([m.id]);
      expect(receipt.sessionMessagesDeleted).toBe(1);
      expect(await store.findTraces(o, [m.id], [m.contentHash])).toEqual([]);
      expect(await ownerFootprint(sentinel)).toEqual(sentinelBefore);
    });

    it('a relation type outside UPPER_SNAKE_CASE is refused before anything is written', async () => {
      const o = newOwner();
      const m = makeMemory(o, {
        relations: [
          {
            subject: { name: 'a', type: 't' },
            type: 'X]->() DETACH DELETE n //',
            object: { name: 'b', type: 't' },
          },
        ],
      });
      expect(await codeOf(store.write(batchOf([m])))).toBe('invalid_input');
      expect(await ownerFootprint(o)).toEqual({ nodes: 0, edges: 0 });
    });
  });
});
