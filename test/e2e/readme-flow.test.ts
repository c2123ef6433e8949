// The README's HTTP walk-through against a real server process started the
// way users start it (`keepgraph start`), on each store: a fresh SQLite data
// directory, and the Neo4j of this test run (KEEPGRAPH_STORE=neo4j).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

// Responses are checked field by field below; a loose type keeps the test readable.
async function request(
  base: string,
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe.each(STORE_KINDS)('keepgraph start on %s', (store) => {
  let server: KeepGraphProcess | undefined;
  let base: string;
  let key: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'kg-e2e-'));
  const call = (method: string, path: string, body?: unknown) =>
    request(base, key, method, path, body);

  beforeAll(async () => {
    server = await startKeepGraph(dataDir, storeEnv(store));
    base = server.base;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe(`README walk-through over HTTP on ${store}`, () => {
    it('makes a key for one owner with the printed operator key, and refuses calls without one', async () => {
      // README: the first start printed an operator key (also in DATA_DIR/operator.key).
      const alex = `alex-${randomUUID()}`;
      const made = await request(base, server!.operatorKey, 'POST', '/v1/keys', {
        name: 'alex app',
        role: 'user',
        owners: [alex],
      });
      expect(made.status).toBe(201);
      expect(made.json).toMatchObject({ role: 'user', owners: [alex], live: true });
      key = made.json.key as string;
      const bare = await request(base, null, 'POST', `/v1/owners/${alex}/recall`, { query: 'x' });
      expect(bare.status).toBe(401);
      expect(bare.json.error.code).toBe('unauthenticated');
      // Another owner, existing or not, answers the same.
      for (const other of ['bob', `nobody-${randomUUID()}`]) {
        const r = await call('POST', `/v1/owners/${other}/recall`, { query: 'x' });
        expect(r.status).toBe(403);
        expect(r.json.error.code).toBe('owner_out_of_scope');
      }
      kg = `/v1/owners/${alex}`;
    });

    let kg = '';
    it('writes, recalls with origin, shows lineage, deletes with a receipt, proves it gone', async () => {
      const ep = await call('POST', `${kg}/memories`, {
        kind: 'episode',
        text: 'Alex strongly dislikes finance clients after the last project',
        origin: { sessionId: 's1', turn: '3', speaker: 'Alex' },
      });
      expect(ep.status).toBe(201);
      const epId = ep.json.memory.id as string;

      const rule = await call('POST', `${kg}/memories`, {
        kind: 'rule',
        authority: 'agent_inferred',
        text: 'Do not pitch finance-sector clients to Alex',
        derivedFrom: [epId],
        origin: { extractor: { name: 'manual', version: '1' } },
        relations: [
          {
            subject: { name: 'Alex', type: 'person' },
            type: 'PREFERS_AGAINST',
            object: { name: 'finance clients', type: 'segment' },
            reason: 'the last project',
          },
        ],
      });
      expect(rule.status).toBe(201);
      const ruleId = rule.json.memory.id as string;
      expect(rule.json.memory.expiresAt).toBe(ep.json.memory.expiresAt);

      const recall = await call('POST', `${kg}/recall`, {
        query: 'Should I pitch a new fintech client?',
        topK: 3,
      });
      expect(recall.status).toBe(200);
      const first = recall.json.results[0];
      expect(first.memory.id).toBe(ruleId);
      expect(first.derivedFrom).toEqual([epId]);
      expect(first.sourceOrigins[0]).toMatchObject({ sessionId: 's1', turn: '3', speaker: 'Alex' });
      expect(first.authority).toBe('agent_inferred');

      const lineage = await call('GET', `${kg}/memories/${ruleId}/lineage`);
      expect(lineage.status).toBe(200);
      expect(lineage.json.nodes.map((n: { key: string }) => n.key).sort()).toEqual(
        [epId, ruleId].sort(),
      );
      expect(lineage.json.edges).toEqual([
        expect.objectContaining({ source: ruleId, target: epId }),
      ]);

      const receipt = await call('DELETE', `${kg}/memories/${epId}`);
      expect(receipt.status).toBe(200);
      // The episode's negative feedback also triggers reflection in the
      // background; whatever it derived by now goes with the episode too.
      const deleted = receipt.json.deletedMemoryIds as string[];
      expect(deleted).toEqual(expect.arrayContaining([epId, ruleId]));
      expect(deleted.length).toBeLessThanOrEqual(3);
      expect(receipt.json.rederive).toEqual([]);
      // The rule's edge, and the reflection's if it ran (its object is typed
      // 'thing', the rule's 'segment': two entities, two edges).
      expect(receipt.json.relationEdgesDeleted).toBe(deleted.length - 1);
      expect(JSON.stringify(receipt.json)).not.toContain('finance');

      const verify = await call('POST', `${kg}/verify-forgotten`, {
        ids: receipt.json.deletedMemoryIds,
        contentHashes: receipt.json.deletedContentHashes,
      });
      expect(verify.json).toEqual({
        forgotten: true,
        traces: [],
        scope: { ownerId: kg.slice('/v1/owners/'.length) },
      });

      const after = await call('POST', `${kg}/recall`, { query: 'finance clients' });
      expect(after.json.results).toEqual([]);
      const bad = await call('POST', `${kg}/memories`, {
        kind: 'episode',
        text: 'no origin here at all',
      });
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe('invalid_input');
    });
  });
});
