// The authorization matrix over HTTP, on both stores: every route × every
// role × {an owner the key holds, another tenant's owner, an owner that
// exists nowhere}, each request sent with a real API key through the real
// authentication, and its answer compared with core's matrix
// (authorizationOutcome), which docs/authorization.md renders. A refusal must
// come with its code and leave the other tenant's data as it was.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OWNER_CASES,
  ROLES,
  USE_CASES,
  authorizationOutcome,
  httpBinding,
  matrixScope,
  type Caller,
  type ExposedUseCase,
  type Engine,
  type OwnerCase,
  type Role,
} from '@keepgraph/core';
import { STORE_KINDS } from '@keepgraph/runtime';
import { HTTP_STATUS, USE_CASE_ROUTES } from '@keepgraph/server';
import { openInProcessServer, type InProcessServer } from './in-process-server.ts';

/** Routes whose cells run at the same time. */
const ROUTES_AT_ONCE = 6;

const SETUP: Caller = { role: 'operator', owners: 'all', principal: 'test:matrix' };

/** What a cell's request names: its owner and, inside it, a memory, a session, a key. */
interface Target {
  role: Role;
  ownerId: string;
  memoryId: string;
  /** Another memory of the owner (an agent's correction names it as evidence). */
  evidenceId: string;
  sessionId: string;
  key: string;
  keyId: string;
  /** A session message's seq. */
  seq: number;
}

/** A cell's request, sent with its route's method. */
interface Req {
  url: string;
  payload?: unknown;
}

const fact = (text: string) => ({ kind: 'fact', text, origin: { sessionId: 's-matrix' } });
// An agent's claims are inferences: they name what they derive from.
const claim = (t: Target, body: Record<string, unknown>) =>
  t.role === 'agent' ? { ...body, derivedFrom: [t.memoryId] } : body;
const o = (t: Target) => `/v1/owners/${encodeURIComponent(t.ownerId)}`;
const memory = (t: Target) => `${o(t)}/memories/${t.memoryId}`;
const session = (t: Target) => `${o(t)}/sessions/${t.sessionId}`;

// One request per route, by `METHOD /v1/url` as the routes declare it (the
// request goes with that method); a route missing here fails the test below.
const REQUESTS: Record<string, (t: Target) => Req> = {
  'POST /v1/owners/:ownerId/memories': (t) => ({
    url: `${o(t)}/memories`,
    payload: claim(t, fact('The user walks by the river every morning.')),
  }),
  'POST /v1/owners/:ownerId/memories::batch': (t) => ({
    url: `${o(t)}/memories:batch`,
    payload: { memories: [claim(t, fact('The user keeps a small herb garden.'))] },
  }),
  'GET /v1/owners/:ownerId/memories/:id': (t) => ({ url: memory(t) }),
  'GET /v1/owners/:ownerId/memories/:id/lineage': (t) => ({ url: `${memory(t)}/lineage` }),
  'GET /v1/owners/:ownerId/memories/:id/neighbours': (t) => ({ url: `${memory(t)}/neighbours` }),
  'GET /v1/owners/:ownerId/entities/graph': (t) => ({ url: `${o(t)}/entities/graph?limit=10` }),
  'DELETE /v1/owners/:ownerId/memories/:id': (t) => ({ url: memory(t) }),
  'PATCH /v1/owners/:ownerId/memories/:id': (t) => ({
    url: memory(t),
    payload: {
      text: 'The user walks by the lake every morning.',
      reason: 'incorrect',
      ...(t.role === 'agent' && { derivedFrom: [t.evidenceId] }),
    },
  }),
  'GET /v1/owners/:ownerId/memories': (t) => ({ url: `${o(t)}/memories?kind=fact&limit=10` }),
  'GET /v1/owners/:ownerId/sessions': (t) => ({ url: `${o(t)}/sessions` }),
  'POST /v1/owners/:ownerId/import': (t) => ({
    url: `${o(t)}/import`,
    payload: { lines: [JSON.stringify(claim(t, fact('The user sails on weekends.')))] },
  }),
  'GET /v1/owners/:ownerId/export': (t) => ({ url: `${o(t)}/export` }),
  'GET /v1/owners/:ownerId/export.jsonl': (t) => ({ url: `${o(t)}/export.jsonl` }),
  'POST /v1/owners/:ownerId/recall': (t) => ({
    url: `${o(t)}/recall`,
    payload: { query: 'river walks' },
  }),
  'POST /v1/owners/:ownerId/why': (t) => ({
    url: `${o(t)}/why`,
    payload: { query: 'river walks' },
  }),
  'GET /v1/owners/:ownerId/reads': (t) => ({
    url: `${o(t)}/reads?memoryId=${t.memoryId}&limit=10`,
  }),
  'POST /v1/owners/:ownerId/forget': (t) => ({
    url: `${o(t)}/forget`,
    payload: { ids: [t.memoryId] },
  }),
  'POST /v1/owners/:ownerId/verify-forgotten': (t) => ({
    url: `${o(t)}/verify-forgotten`,
    payload: { ids: [t.memoryId] },
  }),
  'DELETE /v1/owners/:ownerId': (t) => ({ url: o(t) }),
  'POST /v1/owners/:ownerId/revoke-source': (t) => ({
    url: `${o(t)}/revoke-source`,
    payload: { uri: 'https://example.com/matrix' },
  }),
  'GET /v1/owners/:ownerId/kv/:key': (t) => ({ url: `${o(t)}/kv/theme` }),
  'PUT /v1/owners/:ownerId/kv/:key': (t) => ({
    url: `${o(t)}/kv/theme`,
    payload: claim(t, { text: 'the preferred theme is dark', origin: { sessionId: 's-matrix' } }),
  }),
  'POST /v1/owners/:ownerId/sessions/:sessionId/messages': (t) => ({
    url: `${session(t)}/messages`,
    // Each role in a message role it may write (policy caps.sessionBuffer.messageRoles):
    // tool and agent keys append tool output, never the user's words.
    payload: {
      messages: [
        {
          role: t.role === 'tool' || t.role === 'agent' ? 'tool' : 'user',
          text: 'we are planning a trip to Lisbon',
        },
      ],
    },
  }),
  'GET /v1/owners/:ownerId/sessions/:sessionId/context': (t) => ({ url: `${session(t)}/context` }),
  'GET /v1/owners/:ownerId/sessions/:sessionId/messages': (t) => ({
    url: `${session(t)}/messages`,
  }),
  'POST /v1/owners/:ownerId/sessions/:sessionId/forget': (t) => ({
    url: `${session(t)}/forget`,
    payload: { dryRun: true },
  }),
  'DELETE /v1/owners/:ownerId/sessions/:sessionId': (t) => ({ url: session(t) }),
  'DELETE /v1/owners/:ownerId/sessions/:sessionId/messages/:seq': (t) => ({
    url: `${session(t)}/messages/${t.seq}`,
  }),
  'GET /v1/audit': (t) => ({ url: `/v1/audit?ownerId=${encodeURIComponent(t.ownerId)}` }),
  'GET /v1/audit/verify': () => ({ url: '/v1/audit/verify' }),
  'GET /v1/kpis': (t) => ({ url: `/v1/kpis?ownerId=${encodeURIComponent(t.ownerId)}` }),
  'POST /v1/expire': () => ({ url: '/v1/expire' }),
  'POST /v1/keys': (t) => ({
    url: '/v1/keys',
    payload: { name: 'made in the matrix', role: 'user', owners: [t.ownerId] },
  }),
  'GET /v1/keys': () => ({ url: '/v1/keys' }),
  'DELETE /v1/keys/:id': (t) => ({ url: `/v1/keys/${t.keyId}` }),
  'GET /v1/whoami': () => ({ url: '/v1/whoami' }),
  'GET /v1/owners': () => ({ url: '/v1/owners?limit=5' }),
  // An exposed use-case (core's exposure.ts) whose arguments are all in its
  // path gets its request from its row: the target's owner and memory.
  ...Object.fromEntries(
    (Object.values(USE_CASES) as Partial<ExposedUseCase>[])
      .filter((u): u is ExposedUseCase => u.expose !== undefined)
      .filter((u) => httpBinding(u).args.every((a) => a.in === 'path' || a.optional))
      .map((u) => {
        const b = httpBinding(u);
        const at = (t: Target) =>
          b.path.replace(/:(\w+)/g, (_m, p: string) =>
            encodeURIComponent(p === 'ownerId' ? t.ownerId : p === 'id' ? t.memoryId : p),
          );
        return [`${b.method} /v1${b.path}`, (t: Target): Req => ({ url: `/v1${at(t)}` })];
      }),
  ),
};

// What a route answers an operator for an owner that does not exist: the
// routes that name something inside the owner find nothing.
const ABSENT_STATUS: Record<string, number> = {
  'GET /v1/owners/:ownerId/memories/:id': 404,
  'GET /v1/owners/:ownerId/memories/:id/lineage': 404,
  'GET /v1/owners/:ownerId/memories/:id/neighbours': 404,
  'DELETE /v1/owners/:ownerId/memories/:id': 404,
  'PATCH /v1/owners/:ownerId/memories/:id': 404,
  'POST /v1/owners/:ownerId/forget': 404,
  'GET /v1/owners/:ownerId/sessions/:sessionId/messages': 404,
  'POST /v1/owners/:ownerId/sessions/:sessionId/forget': 404,
  'DELETE /v1/owners/:ownerId': 404,
  'GET /v1/owners/:ownerId/kv/:key': 404,
  'DELETE /v1/owners/:ownerId/sessions/:sessionId': 404,
  'DELETE /v1/owners/:ownerId/sessions/:sessionId/messages/:seq': 404,
};

const routeName = (r: (typeof USE_CASE_ROUTES)[number]) => `${r.method} /v1${r.url}`;

async function seed(
  engine: Engine,
  ownerId: string,
): Promise<Omit<Target, 'key' | 'ownerId' | 'role'>> {
  const w = await engine.remember(
    SETUP,
    ownerId,
    fact('The user walks by the river every morning.'),
  );
  const theme = await engine.putByKey(SETUP, ownerId, 'theme', {
    text: 'the preferred theme is light',
    origin: { sessionId: 's-matrix' },
  });
  await engine.sessionAppend(SETUP, ownerId, 's-matrix', {
    messages: [{ role: 'user', text: 'hello, this is the matrix session' }],
  });
  const [message] = await engine.deps.store.sessionMessages(ownerId, 's-matrix', {
    limit: 1,
    now: new Date().toISOString(),
  });
  const spare = await engine.createKey(SETUP, {
    name: 'to revoke',
    role: 'agent',
    owners: [ownerId],
  });
  return {
    memoryId: w.memory.id,
    evidenceId: theme.memory.id,
    sessionId: 's-matrix',
    keyId: spare.id,
    seq: message!.seq!,
  };
}

describe.each(STORE_KINDS)('the authorization matrix over HTTP on %s', (store) => {
  let server: InProcessServer;
  let runtime: InProcessServer['runtime'];
  let app: InProcessServer['app'];
  // Another tenant's owner: no cell's key holds it, every cell may name it.
  let other: Omit<Target, 'key' | 'role'>;
  let otherCount = 0;
  // Letters only: owner ids pass the write gate, and a run of random hex digits
  // beside a cell number can read as a phone number (a CI run refused
  // `m-<run>-<n>` as personal data).
  const run = Array.from(randomBytes(8), (b) => String.fromCharCode(97 + (b % 26))).join('');

  beforeAll(async () => {
    // What a route answers a role does not depend on what a text means: the
    // hashing embedder serves.
    server = await openInProcessServer(store, `kg-matrix-${store}-`);
    ({ runtime, app } = server);
    await app.ready();
    const otherId = `other-${run}`;
    other = { ownerId: otherId, ...(await seed(runtime.engine, otherId)) };
    otherCount = (await runtime.store.counts({ ownerId: otherId })).memories;
  }, 180_000);

  afterAll(() => server?.close());

  it('has a request for every route', () => {
    expect(USE_CASE_ROUTES.map(routeName).filter((n) => !(n in REQUESTS))).toEqual([]);
  });

  it('answers every cell as the matrix says: success, forbidden_role or owner_out_of_scope', async () => {
    const engine = runtime.engine;
    const misses: string[] = [];
    let cells = 0;
    let n = 0;
    // Routes at once, ROUTES_AT_ONCE at a time (each cell is a handful of
    // store round trips, most of a cell's time on Neo4j); the cells of one
    // route stay in order, since an operator's cells on the other tenant
    // (revoking its spare key) answer by what the cells before did.
    const routes = [...USE_CASE_ROUTES];
    await Promise.all(
      Array.from({ length: ROUTES_AT_ONCE }, async () => {
        for (let route = routes.shift(); route; route = routes.shift()) await cellsOf(route);
      }),
    );
    async function cellsOf(route: (typeof USE_CASE_ROUTES)[number]) {
      const name = routeName(route);
      for (const role of ROLES) {
        for (const ownerCase of OWNER_CASES) {
          const outcome = authorizationOutcome(route.useCase, role, ownerCase);
          if (outcome === 'not_applicable') continue;
          // A fresh owner per cell: destructive routes cannot spoil the next.
          const mine = `m-${run}-${n++}`;
          const target = await targetFor(ownerCase, mine);
          const key = (
            await engine.createKey(SETUP, {
              name: `matrix ${role}`,
              role,
              owners: matrixScope(role) === 'all' ? 'all' : [mine],
            })
          ).key;
          const req = REQUESTS[name]!({ ...target, key, role });
          const r = await app.inject({
            method: route.method,
            url: req.url,
            ...(req.payload !== undefined && { payload: req.payload as object }),
            headers: { authorization: `Bearer ${key}` },
          });
          cells++;
          const expected =
            outcome === 'allowed'
              ? ownerCase === 'absent'
                ? (ABSENT_STATUS[name] ?? route.status ?? 200)
                : (route.status ?? 200)
              : HTTP_STATUS[outcome];
          const code =
            r.statusCode >= 400
              ? (r.json() as { error?: { code?: string } }).error?.code
              : undefined;
          const expectedCode =
            outcome === 'allowed' ? (expected >= 400 ? 'not_found' : undefined) : outcome;
          if (r.statusCode !== expected || code !== expectedCode)
            misses.push(
              `${name} as ${role}, ${ownerCase}: ${r.statusCode} ${code ?? ''} (expected ${expected} ${expectedCode ?? ''}) ${r.statusCode >= 400 ? r.body.slice(0, 160) : ''}`,
            );
        }
      }
    }
    expect(misses.sort()).toEqual([]);
    // 25 routes x 5 roles x up to 3 owners, less what cannot arise.
    expect(cells).toBeGreaterThan(250);
    // No refusal touched the other tenant's owner.
    expect((await runtime.store.counts({ ownerId: other.ownerId })).memories).toBe(otherCount);
    expect(await runtime.store.getById(other.ownerId, other.memoryId)).not.toBeNull();

    async function targetFor(
      ownerCase: OwnerCase,
      mine: string,
    ): Promise<Omit<Target, 'key' | 'role'>> {
      if (ownerCase === 'out_of_scope') return other;
      if (ownerCase === 'absent')
        return {
          ownerId: `absent-${randomUUID()}`,
          memoryId: randomUUID(),
          evidenceId: randomUUID(),
          sessionId: 's-none',
          keyId: other.keyId,
          seq: 1,
        };
      return { ownerId: mine, ...(await seed(engine, mine)) };
    }
  }, 600_000);
});
