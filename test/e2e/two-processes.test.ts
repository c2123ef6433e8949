// Check-then-act across processes: two `keepgraph start` API processes over
// one store (one SQLite file, or one Neo4j), each taking half of 50 parallel
// puts of one key and half of 50 parallel writes at the owner cap. A keyed
// write's supersession and the cap are decided from reads, so this is where
// a store without compare-and-set (or a lock per owner) forks a key's chain
// or overshoots the cap. Both servers run the README's defaults but for a
// small cap (a policy file) and no background timers in the way.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from '@keepgraph/core/ports';
import { createNeo4jStore } from '@keepgraph/store-neo4j';
import { createSqliteStore } from '@keepgraph/store-sqlite';
import { startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { neo4jAuth, neo4jUri } from '../services.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

const PARALLEL = 50;
// Above the 50 versions of the key test, so eviction stays out of it.
const CAP = 60;
const DEFAULT_POLICY = resolve(import.meta.dirname, '../../packages/core/policy/default.yaml');

/** The store both servers write, opened beside them to read a key's whole history. */
async function openBeside(store: 'sqlite' | 'neo4j', dataDir: string): Promise<MemoryStore> {
  const s =
    store === 'neo4j'
      ? createNeo4jStore({
          uri: neo4jUri(),
          ...neo4jAuth(),
        })
      : createSqliteStore({ path: join(dataDir, 'keepgraph.db') });
  await s.init({ dimensions: 384 });
  return s;
}

for (const store of STORE_KINDS) {
  describe(`two API processes over one ${store} store`, () => {
    let dir: string;
    const servers: KeepGraphProcess[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), `keepgraph-two-${store}-`));
      const policy = (await readFile(DEFAULT_POLICY, 'utf8')).replace(
        /maxMemoriesPerOwner: \d+/,
        `maxMemoriesPerOwner: ${CAP}`,
      );
      expect(policy).toContain(`maxMemoriesPerOwner: ${CAP}`);
      const policyPath = join(dir, 'policy.yaml');
      await writeFile(policyPath, policy);
      // Parallel bursts from one key: no rate limit here (it has its own tests).
      const env = { KEEPGRAPH_POLICY: policyPath, KEEPGRAPH_RATE_LIMIT: '0', ...storeEnv(store) };
      // One data dir for both: the SQLite file, and the audit secret both processes key hashes with.
      const data = join(dir, 'data');
      servers.push(await startKeepGraph(data, env));
      servers.push(await startKeepGraph(data, env));
      operator = { authorization: `Bearer ${servers[0]!.operatorKey}` };
      const made = await fetch(`${servers[0]!.base}/v1/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...operator },
        body: JSON.stringify({ name: 'two processes', role: 'user', owners: 'all' }),
      });
      expect(made.status).toBe(201);
      auth = { authorization: `Bearer ${((await made.json()) as { key: string }).key}` };
    }, 180_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('refuses a key revoked through one process on its next request to the other, and an expired key on both', async () => {
      const make = async (body: object) => {
        const r = await fetch(`${servers[0]!.base}/v1/keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...operator },
          body: JSON.stringify(body),
        });
        expect(r.status).toBe(201);
        return (await r.json()) as { id: string; key: string };
      };
      const status = async (base: string, key: string) =>
        (
          await fetch(`${base}/v1/owners/o-revoke/recall`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
            body: JSON.stringify({ query: 'anything' }),
          })
        ).status;
      const k = await make({ name: 'to revoke', role: 'agent', owners: ['o-revoke'] });
      const short = await make({
        name: 'short-lived',
        role: 'agent',
        owners: ['o-revoke'],
        expiresIn: '3s',
      });
      for (const s of servers) {
        expect(await status(s.base, k.key)).toBe(200);
        expect(await status(s.base, short.key)).toBe(200);
      }
      const revoked = await fetch(`${servers[1]!.base}/v1/keys/${k.id}`, {
        method: 'DELETE',
        headers: operator,
      });
      expect(revoked.status).toBe(200);
      expect(((await revoked.json()) as { live: boolean }).live).toBe(false);
      for (const s of servers) expect(await status(s.base, k.key)).toBe(401);
      await new Promise((r) => setTimeout(r, 3200));
      for (const s of servers) expect(await status(s.base, short.key)).toBe(401);
    });

    /** Request i goes to server i mod 2, all at once. */
    const spread = (n: number, send: (base: string, i: number) => Promise<Response>) =>
      Promise.all(Array.from({ length: n }, (_, i) => send(servers[i % 2]!.base, i)));

    let operator: Record<string, string> = {};
    let auth: Record<string, string> = {};
    const json = () => ({ 'content-type': 'application/json', ...auth });

    it(`${PARALLEL} parallel puts of one key, split across the processes, leave exactly one current value in one chain`, async () => {
      const o = `owner-${randomUUID()}`;
      const answers = await spread(PARALLEL, (base, i) =>
        fetch(`${base}/v1/owners/${o}/kv/theme`, {
          method: 'PUT',
          headers: json(),
          body: JSON.stringify({
            text: `the preferred colour theme is number ${i} of the palette`,
            origin: { sessionId: 'kv' },
          }),
        }),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(PARALLEL).fill(200));
      // Every version, from the owner's export and the key's history as each server answers it.
      const exported = (await (
        await fetch(`${servers[0]!.base}/v1/owners/${o}/export?limit=1000`, { headers: auth })
      ).json()) as {
        memories: { id: string }[];
      };
      expect(exported.memories).toHaveLength(1); // the held one: the current value
      for (const s of servers) {
        const kv = (await (
          await fetch(`${s.base}/v1/owners/${o}/kv/theme`, { headers: auth })
        ).json()) as {
          current: { id: string } | null;
          conflicts: unknown[];
        };
        expect(kv.current?.id).toBe(exported.memories[0]!.id);
        expect(kv.conflicts).toEqual([]);
      }
      // The whole history: every put kept, one chain from the current value
      // back to the first, each version written after the one it replaced.
      const beside = await openBeside(store, join(dir, 'data'));
      try {
        const versions = await beside.getByKey(o, 'theme');
        expect(versions).toHaveLength(PARALLEL);
        const byId = new Map(versions.map((m) => [m.id, m]));
        let m = byId.get(exported.memories[0]!.id);
        let steps = 0;
        while (m?.supersedes) {
          const older = byId.get(m.supersedes)!;
          expect(older.supersededBy).toBe(m.id);
          expect(older.createdAt <= m.createdAt, `${older.createdAt} then ${m.createdAt}`).toBe(
            true,
          );
          m = older;
          steps++;
        }
        expect(steps).toBe(PARALLEL - 1);
      } finally {
        await beside.close();
      }
    });

    it(`${PARALLEL} parallel writes at the cap, split across the processes, never leave the owner above it`, async () => {
      const o = `owner-${randomUUID()}`;
      const write = (base: string, text: string) =>
        fetch(`${base}/v1/owners/${o}/memories`, {
          method: 'POST',
          headers: json(),
          body: JSON.stringify({ kind: 'fact', text, origin: { sessionId: 'cap' } }),
        });
      for (let i = 0; i < CAP; i++) {
        const r = await write(
          servers[i % 2]!.base,
          `Filler fact number ${i} about the allotment and its crops`,
        );
        expect(r.status).toBe(201);
      }
      const answers = await spread(PARALLEL, (base, i) =>
        write(base, `Late fact number ${i} about the greenhouse and its tomatoes`),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(PARALLEL).fill(201));
      const held = (await (
        await fetch(`${servers[1]!.base}/v1/owners/${o}/export?limit=1000`, { headers: auth })
      ).json()) as {
        memories: unknown[];
      };
      expect(held.memories.length).toBeLessThanOrEqual(CAP);
      expect(held.memories.length).toBeGreaterThan(0);
    });
  });
}
