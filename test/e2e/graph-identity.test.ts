// The reads an analyst's web UI starts with, against `keepgraph start` on
// each store, with real API keys and a JWT: who the credential is
// (GET /v1/whoami), the owners it may look at (GET /v1/owners), a memory's
// neighbours and the owner's entity graph, both loaded into graphology as
// the UI loads them. A key scoped to one owner hears of no other owner, and
// every refusal has its code; `keepgraph owners` lists what the API lists.
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { MultiDirectedGraph } from 'graphology';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startKeepGraph, type KeepGraphProcess } from './keepgraph-process.ts';
import { storeEnv } from './stores.ts';
import { JWT_ENV, jwt, validClaims } from './jwt.ts';
import { keepgraphArgv, keepgraphEnv } from '../keepgraph-cli.ts';
import { STORE_KINDS } from '@keepgraph/runtime';

const root = resolve(import.meta.dirname, '../..');
describe.each(STORE_KINDS)('graph and identity reads over %s', (store) => {
  let server: KeepGraphProcess;
  const dataDir = mkdtempSync(join(tmpdir(), `kg-graph-${store}-`));
  const run = `gi-${randomUUID().slice(0, 8)}`;
  const [a, b] = [`${run}-a`, `${run}-b`];
  const env = (): Record<string, string> => ({
    ...storeEnv(store),
    KEEPGRAPH_SWEEP_INTERVAL_MS: '0',
    ...JWT_ENV,
  });

  async function call(key: string, path: string, init: { method?: string; body?: unknown } = {}) {
    const r = await fetch(`${server.base}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${key}`,
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
    const text = await r.text();
    // Checked field by field in the tests; a loose type keeps them readable.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: r.status, json: (text ? JSON.parse(text) : null) as any };
  }
  const key = (flags: string[]) => createKey(dataDir, env(), [...flags, '--name', 'graph e2e']);

  let op: string;
  let episodeId: string;
  let ruleId: string;
  let childId: string;
  let otherId: string;

  beforeAll(async () => {
    server = await startKeepGraph(dataDir, env());
    op = server.operatorKey;
    const write = async (ownerId: string, body: Record<string, unknown>) => {
      const r = await call(op, `/v1/owners/${ownerId}/memories`, { method: 'POST', body });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      return r.json.memory.id as string;
    };
    const relation = {
      subject: { name: 'Alex', type: 'person' },
      type: 'PREFERS_AGAINST',
      object: { name: 'red-eye flights' },
      reason: 'arrives exhausted',
    };
    episodeId = await write(a, {
      kind: 'episode',
      text: 'Alex said the red-eye flight left him exhausted for two days',
      origin: { sessionId: 's-graph', turn: '1' },
    });
    ruleId = await write(a, {
      kind: 'rule',
      text: 'Avoid booking red-eye flights for Alex',
      origin: { extractor: { name: 'e2e', version: '1' } },
      derivedFrom: [episodeId],
      relations: [relation],
    });
    childId = await write(a, {
      kind: 'summary',
      text: 'Travel rules for Alex: daytime flights only',
      origin: { extractor: { name: 'e2e', version: '1' } },
      derivedFrom: [ruleId],
    });
    otherId = await write(b, {
      kind: 'episode',
      text: 'Owner b keeps bees on the roof',
      origin: { sessionId: 's-b' },
    });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("draws a rule's neighbours: its episode, what grew out of it, the relation it asserts", async () => {
    const r = await call(op, `/v1/owners/${a}/memories/${ruleId}/neighbours`);
    expect(r.status).toBe(200);
    const graph = MultiDirectedGraph.from(r.json);
    expect(r.json.attributes).toEqual({ root: ruleId, ownerId: a, truncated: false });
    expect(graph.getNodeAttributes(ruleId)).toMatchObject({
      nodeType: 'memory',
      kind: 'rule',
      authority: 'operator',
      supersededBy: null,
      conflict: false,
    });
    expect(graph.getNodeAttribute(episodeId, 'kind')).toBe('episode');
    expect(graph.getNodeAttribute(episodeId, 'origin')).toMatchObject({ sessionId: 's-graph' });
    expect(graph.getNodeAttribute(childId, 'kind')).toBe('summary');
    expect(graph.getNodeAttributes('entity:alex')).toEqual({
      nodeType: 'entity',
      name: 'Alex',
      entityType: 'person',
    });
    expect(graph.getEdgeAttributes(`${ruleId}->${episodeId}`)).toEqual({ type: 'DERIVED_FROM' });
    expect(graph.getEdgeAttributes(`${childId}->${ruleId}`)).toEqual({ type: 'DERIVED_FROM' });
    expect(graph.getEdgeAttributes(`${ruleId}-ASSERTS->entity:alex`)).toEqual({ type: 'ASSERTS' });
    expect(graph.getEdgeAttributes('entity:alex-PREFERS_AGAINST->entity:red-eye flights')).toEqual({
      type: 'PREFERS_AGAINST',
      reasons: ['arrives exhausted'],
      assertedBy: [ruleId],
    });

    // The lineage's nodes say what they are too, and merge with the neighbourhood key for key.
    const lineage = await call(op, `/v1/owners/${a}/memories/${childId}/lineage`);
    expect(
      lineage.json.nodes.every(
        (n: { attributes: { nodeType: string } }) => n.attributes.nodeType === 'memory',
      ),
    ).toBe(true);
    for (const e of lineage.json.edges) expect(graph.hasEdge(e.key)).toBe(true);

    const missing = await call(op, `/v1/owners/${a}/memories/${randomUUID()}/neighbours`);
    expect([missing.status, missing.json.error.code]).toEqual([404, 'not_found']);
    const theirs = await call(op, `/v1/owners/${a}/memories/${otherId}/neighbours`);
    expect([theirs.status, theirs.json.error.code]).toEqual([404, 'not_found']);
  });

  it("draws the owner's entity graph, cut at ?limit=, and refuses a bad limit", async () => {
    const r = await call(op, `/v1/owners/${a}/entities/graph`);
    expect(r.status).toBe(200);
    const graph = MultiDirectedGraph.from(r.json);
    expect(r.json.attributes).toEqual({ ownerId: a, truncated: false });
    expect(graph.nodes().sort()).toEqual(['entity:alex', 'entity:red-eye flights']);
    expect(r.json.edges).toEqual([
      {
        key: 'entity:alex-PREFERS_AGAINST->entity:red-eye flights',
        source: 'entity:alex',
        target: 'entity:red-eye flights',
        attributes: {
          type: 'PREFERS_AGAINST',
          reasons: ['arrives exhausted'],
          assertedBy: [ruleId],
        },
      },
    ]);
    expect((await call(op, `/v1/owners/${b}/entities/graph?limit=1`)).json).toMatchObject({
      attributes: { ownerId: b, truncated: false },
      nodes: [],
      edges: [],
    });
    for (const bad of ['0', '5001', 'many', '1.5']) {
      const refused = await call(op, `/v1/owners/${a}/entities/graph?limit=${bad}`);
      expect([refused.status, refused.json.error.code], bad).toEqual([400, 'invalid_input']);
    }
  });

  it('says who each credential is: an operator key, a scoped key with its expiry, a JWT', async () => {
    const me = await call(op, '/v1/whoami');
    expect(me.status).toBe(200);
    expect(me.json).toEqual({
      principal: expect.stringMatching(/^key:[0-9a-f]{16}$/),
      role: 'operator',
      owners: 'all',
      expiresAt: null,
    });
    const agent = key(['--role', 'agent', '--owners', a, '--expires', '1d']);
    expect((await call(agent.key, '/v1/whoami')).json).toEqual({
      principal: `key:${agent.id}`,
      role: 'agent',
      owners: [a],
      expiresAt: (agent as unknown as { expiresAt: string }).expiresAt,
    });
    const claims = validClaims('analyst-7', 'analyst', [a]);
    const token = jwt(claims);
    expect((await call(token, '/v1/whoami')).json).toEqual({
      principal: 'jwt:analyst-7',
      role: 'analyst',
      owners: [a],
      expiresAt: new Date(claims.exp * 1000).toISOString(),
    });
  });

  it('lists owners: every one to an operator, its own to a scoped analyst, none to a user', async () => {
    const page = await call(op, `/v1/owners?after=${run}&limit=1`);
    expect(page.status).toBe(200);
    expect(page.json).toEqual({ owners: [{ ownerId: a, memories: 3 }], next: a });
    const next = await call(op, `/v1/owners?after=${page.json.next}&limit=1`);
    expect(next.json.owners).toEqual([{ ownerId: b, memories: 1 }]);

    const analyst = key(['--role', 'analyst', '--owners', `${a},${run}-empty`]);
    expect((await call(analyst.key, '/v1/owners')).json).toEqual({
      owners: [{ ownerId: a, memories: 3 }],
      next: null,
    });
    // Its own owner's graph it may read; another's is out of scope, whether it exists or not.
    expect((await call(analyst.key, `/v1/owners/${a}/entities/graph`)).status).toBe(200);
    for (const path of [
      `/v1/owners/${b}/memories/${otherId}/neighbours`,
      `/v1/owners/${b}/entities/graph`,
      `/v1/owners/${run}-nowhere/entities/graph`,
    ]) {
      const refused = await call(analyst.key, path);
      expect([refused.status, refused.json.error.code], path).toEqual([403, 'owner_out_of_scope']);
    }

    const user = key(['--role', 'user', '--owners', a]);
    const refused = await call(user.key, '/v1/owners');
    expect([refused.status, refused.json.error.code]).toEqual([403, 'forbidden_role']);
    const bad = await call(op, '/v1/owners?limit=0');
    expect([bad.status, bad.json.error.code]).toEqual([400, 'invalid_input']);
  });

  it('keepgraph owners lists the same owners from the data directory', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      keepgraphArgv('owners', '--after', run, '--limit', '2', '--json', '--data', dataDir),
      { cwd: root, env: keepgraphEnv({ ...env(), KEEPGRAPH_DEBUG: '' }) },
    );
    const page = JSON.parse(stdout) as { owners: { ownerId: string }[]; next: string | null };
    expect(page.owners.map((o) => o.ownerId)).toEqual([a, b]);
  });
});
