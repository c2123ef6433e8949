// The HTTP API end to end through inject(): the real SQLite store (in a temp
// dir, opened by the embedded runtime) and the real local embedding model.
// Bad input must get a 4xx with the expected code and store nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ROLE_DEFAULT_AUTHORITY } from '@keepgraph/core';
import { USE_CASE_ROUTES } from '../src/index.ts';
import { createHashingEmbedder } from '@keepgraph/embedder';
import { keyedClients, type KeyedClient } from './keyed-clients.ts';
import { openEmbeddedRuntime, type EmbeddedRuntime } from '@keepgraph/runtime';
import { KEEPGRAPH_VERSION, schemaVersions } from '@keepgraph/runtime/version';

let dir: string;
let runtime: EmbeddedRuntime;
let apps: Record<'operator' | 'user' | 'tool' | 'agent', KeyedClient>;
let app: FastifyInstance;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keepgraph-server-'));
  // The hashing embedder: these tests check the HTTP contract (status codes,
  // shapes, audit, paging), not what a text means; the model would embed
  // the export test's 2,406 writes for nothing (most of the file's minute).
  const embedder = createHashingEmbedder();
  runtime = await openEmbeddedRuntime({ dataDir: dir, embedder, sweepIntervalMs: null });
  ({ app, clients: apps } = await keyedClients(runtime.engine, [
    'operator',
    'user',
    'tool',
    'agent',
  ]));
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const owner = () => `owner-${randomUUID()}`;

const fact = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: 'fact',
  text,
  origin: { sessionId: 's-1', turn: '3' },
  ...extra,
});

async function post(app: KeyedClient, url: string, payload: unknown) {
  return app.inject({ method: 'POST', url, payload: payload as object });
}

/** POST `fact(text, extra)` to /v1/owners/<ownerPath>/memories (the owner as it is in the URL). */
async function postFact(
  app: KeyedClient,
  ownerPath: string,
  text: string,
  extra: Record<string, unknown> = {},
) {
  return post(app, `/v1/owners/${ownerPath}/memories`, fact(text, extra));
}

/** How many memories the store holds, across owners (operator KPIs). */
async function memoryCount(): Promise<number> {
  const r = await apps.operator.inject({ method: 'GET', url: '/v1/kpis' });
  expect(r.statusCode).toBe(200);
  return r.json().memories as number;
}

async function ownerIds(ownerId: string): Promise<string[]> {
  return runtime.store.listIds(ownerId);
}

describe('write, recall, lineage, delete, verify', () => {
  it('round-trips a memory with its origin and proves it forgotten', async () => {
    const o = owner();
    const w = await postFact(apps.user, o, 'The user is allergic to peanuts and avoids satay.');
    expect(w.statusCode).toBe(201);
    const { memory, superseded } = w.json();
    expect(superseded).toBeNull();
    expect(memory.ownerId).toBe(o);
    expect(memory.authority).toBe('user');
    expect(memory.origin).toMatchObject({
      sessionId: 's-1',
      turn: '3',
      writtenBy: expect.stringMatching(/^key:/),
    });

    const r = await post(apps.user, `/v1/owners/${o}/recall`, {
      query: 'what food allergies does the user have?',
    });
    expect(r.statusCode).toBe(200);
    const recall = r.json();
    expect(recall.results[0].memory.id).toBe(memory.id);
    expect(recall.results[0].origin).toMatchObject({
      sessionId: 's-1',
      writtenBy: expect.stringMatching(/^key:/),
    });
    expect(recall.results[0].breakdown.final).toBeGreaterThan(0);

    const g = await apps.user.inject({
      method: 'GET',
      url: `/v1/owners/${o}/memories/${memory.id}`,
    });
    expect(g.statusCode).toBe(200);
    expect(g.json().text).toBe(memory.text);

    const l = await apps.user.inject({
      method: 'GET',
      url: `/v1/owners/${o}/memories/${memory.id}/lineage`,
    });
    expect(l.statusCode).toBe(200);
    const graph = l.json();
    expect(graph.options).toEqual({ type: 'directed', multi: false, allowSelfLoops: false });
    expect(graph.nodes.map((n: { key: string }) => n.key)).toEqual([memory.id]);

    const why = await post(apps.user, `/v1/owners/${o}/why`, { query: 'peanut allergy', topK: 1 });
    expect(why.statusCode).toBe(200);
    expect(Object.keys(why.json().lineage)).toEqual([memory.id]);

    const d = await apps.user.inject({
      method: 'DELETE',
      url: `/v1/owners/${o}/memories/${memory.id}`,
    });
    expect(d.statusCode).toBe(200);
    const receipt = d.json();
    expect(receipt).toMatchObject({ ownerId: o, reason: 'forget', deletedMemoryIds: [memory.id] });
    expect(receipt.deletedContentHashes).toEqual([memory.contentHash]);
    expect(JSON.stringify(receipt)).not.toContain('peanuts');

    const v = await post(apps.user, `/v1/owners/${o}/verify-forgotten`, {
      ids: [memory.id],
      contentHashes: [memory.contentHash],
    });
    expect(v.statusCode).toBe(200);
    expect(v.json()).toEqual({ forgotten: true, traces: [], scope: { ownerId: o } });

    const after = await post(apps.user, `/v1/owners/${o}/recall`, { query: 'peanuts' });
    expect(after.json().results).toEqual([]);
    const gone = await apps.user.inject({
      method: 'GET',
      url: `/v1/owners/${o}/memories/${memory.id}`,
    });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('not_found');
  });

  it('writes a batch and reports refusals by index', async () => {
    const o = owner();
    const r = await post(apps.user, `/v1/owners/${o}/memories:batch`, {
      memories: [
        fact('The user prefers window seats on long flights.'),
        { kind: 'fact', text: 'no origin here at all' },
      ],
    });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.stored).toHaveLength(1);
    expect(body.failed).toEqual([expect.objectContaining({ index: 1, code: 'invalid_input' })]);
  });

  it('puts and gets by key, and 404s for an unknown key', async () => {
    const o = owner();
    const put = await apps.user.inject({
      method: 'PUT',
      url: `/v1/owners/${o}/kv/home-city`,
      payload: { text: 'The user lives in Lisbon, Portugal.', origin: { sessionId: 's-2' } },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().memory).toMatchObject({ kind: 'kv', key: 'home-city' });
    const get = await apps.user.inject({ method: 'GET', url: `/v1/owners/${o}/kv/home-city` });
    expect(get.statusCode).toBe(200);
    expect(get.json().current.text).toContain('Lisbon');
    const other = await apps.user.inject({
      method: 'GET',
      url: `/v1/owners/${owner()}/kv/home-city`,
    });
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('not_found');
  });

  it('appends to a session and returns its context', async () => {
    const o = owner();
    const a = await post(apps.user, `/v1/owners/${o}/sessions/s-9/messages`, {
      messages: [
        { role: 'user', text: 'I am planning a trip to Kyoto in April.' },
        { role: 'assistant', text: 'Cherry blossom season, book early.' },
      ],
    });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toMatchObject({ appended: 2 });
    const c = await apps.user.inject({
      method: 'GET',
      url: `/v1/owners/${o}/sessions/s-9/context?query=trip`,
    });
    expect(c.statusCode).toBe(200);
    expect(c.json().session.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(c.json().longTerm).not.toBeNull();
  });

  it('revokes a source and forgets a whole owner', async () => {
    const o = owner();
    const src = { kind: 'url', uri: 'https://example.com/menu' };
    await postFact(apps.user, o, 'The restaurant menu lists a vegan tasting option.', {
      origin: { source: src },
    });
    await postFact(apps.user, o, 'The user drives an electric car to work every day.');
    const rv = await post(apps.user, `/v1/owners/${o}/revoke-source`, { uri: src.uri });
    expect(rv.statusCode).toBe(200);
    expect(rv.json().deletedMemoryIds).toHaveLength(1);
    expect(await ownerIds(o)).toHaveLength(1);
    const fo = await apps.user.inject({ method: 'DELETE', url: `/v1/owners/${o}` });
    expect(fo.statusCode).toBe(200);
    expect(fo.json().reason).toBe('forget_owner');
    expect(await ownerIds(o)).toEqual([]);
  });
});

describe('bad input: a 4xx with a code, and nothing stored', () => {
  async function expectRefused(
    res: { statusCode: number; json(): { error: { code: string; message: unknown } } },
    status: number,
    code: string,
    o?: string,
  ): Promise<void> {
    expect(res.statusCode).toBe(status);
    expect(res.json().error.code).toBe(code);
    expect(typeof res.json().error.message).toBe('string');
    if (o) expect(await ownerIds(o)).toEqual([]);
  }

  /** POST a raw body of this content type to the owner's memories, as a user. */
  async function postRaw(o: string, contentType: string, payload: string) {
    return apps.user.inject({
      method: 'POST',
      url: `/v1/owners/${o}/memories`,
      headers: { 'content-type': contentType },
      payload,
    });
  }

  it('missing origin -> 400 invalid_input with issues', async () => {
    const o = owner();
    const r = await post(apps.user, `/v1/owners/${o}/memories`, {
      kind: 'fact',
      text: 'The user likes green tea a lot.',
    });
    await expectRefused(r, 400, 'invalid_input', o);
    expect(r.json().error.details.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'origin' })]),
    );
  });

  it('blank owner -> 400 owner_required', async () => {
    const before = await memoryCount();
    const r = await postFact(apps.user, '%20', 'The user likes green tea a lot.');
    await expectRefused(r, 400, 'owner_required');
    expect(await memoryCount()).toBe(before);
  });

  it('owner ids are never trimmed, are NFC-normalised, and reach 256 characters on every route', async () => {
    const o = owner();
    const kept = await postFact(apps.user, o, 'The user keeps bees on the roof.');
    expect(kept.statusCode).toBe(201);
    // "\t<owner> " used to reach <owner>: now refused, and <owner> keeps its memory.
    const del = await apps.user.inject({ method: 'DELETE', url: `/v1/owners/%09${o}%20` });
    await expectRefused(del, 400, 'invalid_input');
    expect(await ownerIds(o)).toHaveLength(1);
    const zeroWidth = await postFact(apps.user, `${o}%E2%80%8B`, 'The user keeps bees.');
    await expectRefused(zeroWidth, 400, 'invalid_input');
    // Two spellings of one name are one owner.
    const nfd = `e\u0301le\u0300ve-${o}`;
    const w = await postFact(apps.user, encodeURIComponent(nfd), 'The pupil likes algebra.');
    expect(w.statusCode).toBe(201);
    expect(await ownerIds(nfd.normalize('NFC'))).toHaveLength(1);
    // The engine's limit is the HTTP limit: 256 characters work, 257 do not.
    const long = `${o}-${'x'.repeat(256 - o.length - 1)}`;
    expect((await postFact(apps.user, long, 'The user likes long names.')).statusCode).toBe(201);
    await expectRefused(
      await postFact(apps.user, `${long}y`, 'The user likes long names.'),
      400,
      'invalid_input',
    );
  });

  it("verify-forgotten says whose data it searched: another owner's live id reads as forgotten, and that is scoped, not a leak", async () => {
    const a = owner();
    const b = owner();
    const w = await postFact(apps.user, a, 'The user owns a red canoe.');
    const id = w.json().memory.id as string;
    const own = await post(apps.user, `/v1/owners/${a}/verify-forgotten`, { ids: [id] });
    expect(own.json()).toMatchObject({ forgotten: false, scope: { ownerId: a } });
    const other = await post(apps.user, `/v1/owners/${b}/verify-forgotten`, { ids: [id] });
    expect(other.json()).toEqual({ forgotten: true, traces: [], scope: { ownerId: b } });
  });

  it('a batch holds 1 to 1,000 memories', async () => {
    const before = await memoryCount();
    const o = owner();
    await expectRefused(
      await post(apps.user, `/v1/owners/${o}/memories:batch`, { memories: [] }),
      400,
      'invalid_input',
    );
    const many = Array.from({ length: 1001 }, (_, i) =>
      fact(`The user noted item number ${i} today.`),
    );
    await expectRefused(
      await post(apps.user, `/v1/owners/${o}/memories:batch`, { memories: many }),
      400,
      'invalid_input',
    );
    expect(await memoryCount()).toBe(before);
  });

  it('1 MB text -> 413 payload_too_large', async () => {
    const o = owner();
    const r = await postFact(apps.user, o, 'a'.repeat(1024 * 1024));
    await expectRefused(r, 413, 'payload_too_large', o);
    expect(r.json().error.details.limitBytes).toBe(256 * 1024);
  });

  it('invalid JSON -> 400 invalid_input', async () => {
    const o = owner();
    const r = await postRaw(o, 'application/json', '{"kind": "fact", "text": ');
    await expectRefused(r, 400, 'invalid_input', o);
  });

  it('empty JSON body, a JSON array and a wrong content type -> 400 invalid_input', async () => {
    const o = owner();
    const url = `/v1/owners/${o}/memories`;
    const empty = await postRaw(o, 'application/json', '');
    await expectRefused(empty, 400, 'invalid_input', o);
    const array = await apps.user.inject({
      method: 'POST',
      url,
      payload: [fact('The user likes green tea a lot.')],
    });
    await expectRefused(array, 400, 'invalid_input', o);
    const none = await apps.user.inject({ method: 'POST', url });
    await expectRefused(none, 400, 'invalid_input', o);
    const text = await postRaw(o, 'text/plain', 'hello');
    await expectRefused(text, 400, 'invalid_input', o);
  });

  // A fact with `extra` on top, written as `role`: refused (status, code), nothing stored.
  // prettier-ignore
  const refusedWrites: [string, number, string, keyof typeof apps, string, Record<string, unknown>][] = [
    ['unknown kind', 400, 'invalid_input', 'user', 'The user likes green tea a lot.', { kind: 'gossip' }],
    ['negative ttlSeconds', 400, 'invalid_input', 'user', 'The user likes green tea a lot.', { ttlSeconds: -5 }],
    ['agent role writing authority user', 403, 'authority_exceeds_role', 'agent', 'The user said they love jazz music.', { authority: 'user' }],
  ];
  it.each(refusedWrites)('%s -> %i %s', async (_what, status, code, role, text, extra) => {
    const o = owner();
    const r = await postFact(apps[role], o, text, extra);
    await expectRefused(r, status, code, o);
  });

  it('malformed query parameters and forget bodies -> 400 invalid_input', async () => {
    const audit = await apps.operator.inject({ method: 'GET', url: '/v1/audit?limit=abc' });
    await expectRefused(audit, 400, 'invalid_input');
    const forget = await post(apps.user, `/v1/owners/${owner()}/forget`, { ids: 'not-a-list' });
    await expectRefused(forget, 400, 'invalid_input');
    const batch = await post(apps.user, `/v1/owners/${owner()}/memories:batch`, {
      memories: 'nope',
    });
    await expectRefused(batch, 400, 'invalid_input');
    const recall = await post(apps.user, `/v1/owners/${owner()}/recall`, {
      query: 'x',
      recipe: 'nonsense',
    });
    await expectRefused(recall, 400, 'invalid_input');
  });

  it('unknown owner on DELETE /v1/owners/:id -> 404 not_found', async () => {
    const r = await apps.user.inject({ method: 'DELETE', url: `/v1/owners/${owner()}` });
    await expectRefused(r, 404, 'not_found');
  });

  it('unknown memory id on delete -> 404 not_found', async () => {
    const r = await apps.user.inject({
      method: 'DELETE',
      url: `/v1/owners/${owner()}/memories/${randomUUID()}`,
    });
    await expectRefused(r, 404, 'not_found');
  });

  it('unknown route -> 404 not_found', async () => {
    const r = await apps.user.inject({ method: 'GET', url: '/v1/nope' });
    await expectRefused(r, 404, 'not_found');
  });

  it('a secret (AWS key) -> 422 refused_secret, audited without the text', async () => {
    const o = owner();
    // Not AWS's documented example key: secretlint rightly lets that one through.
    const key = 'AKIAQ3HXN7ZP2LW5K8RT';
    const r = await postFact(
      apps.user,
      o,
      `The deploy credentials are aws_access_key_id=${key} aws_secret_access_key=Zq8vR2mT5nW1xK9pL3sB7dF4hJ6gY0cV2aE8uQ1o`,
    );
    await expectRefused(r, 422, 'refused_secret', o);
    expect(JSON.stringify(r.json())).not.toContain(key);
    const a = await apps.operator.inject({ method: 'GET', url: `/v1/audit?ownerId=${o}` });
    expect(a.statusCode).toBe(200);
    const events = a.json().events;
    expect(events).toEqual([expect.objectContaining({ type: 'refuse', reason: 'refused_secret' })]);
    expect(JSON.stringify(events)).not.toContain(key);
  });

  it('a role in the body is ignored: it is a strict-schema error, never a privilege', async () => {
    const o = owner();
    const r = await postFact(apps.agent, o, 'The user said they love jazz music.', {
      role: 'operator',
      authority: 'operator',
    });
    expect(r.statusCode).toBeGreaterThanOrEqual(400);
    expect(r.statusCode).toBeLessThan(500);
    expect(await ownerIds(o)).toEqual([]);
    // The role comes from configuration: an agent's claim gets the agent's
    // authority and principal, whatever the body says.
    const source = await postFact(
      apps.user,
      o,
      'The user mentioned going to three jazz concerts this month.',
    );
    expect(source.statusCode).toBe(201);
    const ok = await post(apps.agent, `/v1/owners/${o}/memories`, {
      ...fact('The user probably loves jazz music.'),
      derivedFrom: [source.json().memory.id],
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().memory.authority).toBe(ROLE_DEFAULT_AUTHORITY.agent);
    expect(ok.json().memory.origin.writtenBy).toBe(`key:${apps.agent.key.slice(4, 20)}`);
  });

  it('operator routes refuse other roles with 403 forbidden_role', async () => {
    for (const url of ['/v1/kpis', '/v1/audit', '/v1/audit/verify']) {
      const r = await apps.user.inject({ method: 'GET', url });
      await expectRefused(r, 403, 'forbidden_role');
    }
    const e = await apps.agent.inject({ method: 'POST', url: '/v1/expire' });
    await expectRefused(e, 403, 'forbidden_role');
  });
});

describe('operations and documentation', () => {
  it('refuses a key whose name or owner ids hold a secret or personal data, with the gate codes, keeping nothing', async () => {
    // Made up, and assembled so that no scanner reads this file as a leak.
    const token = ['gh', 'p_'].join('') + 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A';
    const email = `${randomUUID().slice(0, 8)}@example.com`;
    const cases = [
      { body: { name: `ci ${token}`, owners: [owner()] }, code: 'refused_secret', field: 'name' },
      {
        body: { name: `for ${email}`, owners: [owner()] },
        code: 'refused_personal_data',
        field: 'name',
      },
      {
        body: { name: 'support bot', owners: [owner(), email] },
        code: 'refused_personal_data',
        field: 'owners[1]',
      },
      {
        body: { name: 'support bot', owners: [token] },
        code: 'refused_secret',
        field: 'owners[0]',
      },
    ];
    const keysBefore = (await apps.operator.inject({ method: 'GET', url: '/v1/keys' })).json();
    for (const c of cases) {
      const r = await post(apps.operator, '/v1/keys', { role: 'agent', ...c.body });
      expect(r.statusCode, c.field).toBe(422);
      expect(r.json().error.code, c.field).toBe(c.code);
      expect(r.json().error.details.field, c.field).toBe(c.field);
      expect(r.body).not.toContain(token);
      expect(r.body).not.toContain(email);
    }
    const keysAfter = (await apps.operator.inject({ method: 'GET', url: '/v1/keys' })).json();
    expect(keysAfter).toEqual(keysBefore);
    // Audited as refusals, by keyed hash: neither value is in the log.
    const audit = [];
    for (let afterSeq = 0; ;) {
      const page = await runtime.store.listAudit({ afterSeq, limit: 1000 });
      audit.push(...page);
      if (page.length < 1000) break;
      afterSeq = page.at(-1)!.seq;
    }
    const refusals = audit.filter(
      (e) =>
        e.type === 'refuse' &&
        cases.some((c) => c.field === e.details.field && c.code === e.reason),
    );
    expect(refusals.length).toBeGreaterThanOrEqual(cases.length);
    expect(JSON.stringify(audit)).not.toContain(token);
    expect(JSON.stringify(audit)).not.toContain(email);
    // A plain name and owner ids still make a key.
    const ok = await post(apps.operator, '/v1/keys', {
      name: 'support bot',
      role: 'agent',
      owners: [owner()],
    });
    expect(ok.statusCode).toBe(201);
  });

  it('healthz names the version, the store and the schema version its migrations reached, and the model', async () => {
    const r = await apps.user.inject({ method: 'GET', url: '/healthz' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      ok: true,
      version: KEEPGRAPH_VERSION,
      store: 'sqlite',
      // The last SQLite migration file's number, as applied to this store's file.
      schemaVersion: schemaVersions().sqlite,
      model: runtime.engine.deps.embedder.modelId,
    });
    expect(schemaVersions().sqlite).toBeGreaterThanOrEqual(17);
  });

  it('runs expiry on demand and verifies the audit chain', async () => {
    const ex = await apps.operator.inject({ method: 'POST', url: '/v1/expire' });
    expect(ex.statusCode).toBe(200);
    expect(ex.json()).toMatchObject({ purged: expect.any(Number) });
    const v = await apps.operator.inject({ method: 'GET', url: '/v1/audit/verify' });
    expect(v.statusCode).toBe(200);
    expect(v.json().ok).toBe(true);
    expect(v.json().checked).toBeGreaterThan(0);
    const k = await apps.operator.inject({ method: 'GET', url: '/v1/kpis' });
    expect(k.json()).toMatchObject({ attributedShare: 1 });
    expect(k.json().refusals.refused_secret).toBeGreaterThanOrEqual(1);
  });

  it('serves a valid OpenAPI document with the paths', async () => {
    const r = await apps.user.inject({ method: 'GET', url: '/openapi.json' });
    expect(r.statusCode).toBe(200);
    const doc = JSON.parse(r.body);
    expect(doc.openapi).toMatch(/^3\./);
    const paths = Object.keys(doc.paths);
    for (const p of [
      '/v1/owners/{ownerId}/memories',
      '/v1/owners/{ownerId}/memories:batch',
      '/v1/owners/{ownerId}/recall',
      '/v1/owners/{ownerId}/why',
      '/v1/owners/{ownerId}/memories/{id}',
      '/v1/owners/{ownerId}/memories/{id}/lineage',
      '/v1/owners/{ownerId}/forget',
      '/v1/owners/{ownerId}/verify-forgotten',
      '/v1/owners/{ownerId}',
      '/v1/owners/{ownerId}/revoke-source',
      '/v1/owners/{ownerId}/kv/{key}',
      '/v1/owners/{ownerId}/sessions/{sessionId}/messages',
      '/v1/owners/{ownerId}/sessions/{sessionId}/context',
      '/v1/audit',
      '/v1/audit/verify',
      '/v1/kpis',
      '/v1/expire',
      '/healthz',
    ]) {
      expect(paths).toContain(p);
    }
    // Every route of the registry, with its method; every write documents Idempotency-Key.
    for (const route of USE_CASE_ROUTES) {
      const path = `/v1${route.url.replace(/\/:(\w+)/g, '/{$1}').replace(/::/g, ':')}`;
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${path}`).toBeDefined();
      const headers = ((op.parameters ?? []) as { in: string; name: string }[])
        .filter((x) => x.in === 'header')
        .map((x) => x.name);
      const replays =
        (route.idempotency ?? (route.method === 'GET' ? 'ignored' : 'replay')) === 'replay';
      expect(headers.includes('idempotency-key'), `${route.method} ${path}`).toBe(replays);
    }
    const patch = doc.paths['/v1/owners/{ownerId}/memories/{id}'].patch;
    expect(patch.requestBody.content['application/json'].schema.properties).toHaveProperty(
      'reason',
    );
    const write = doc.paths['/v1/owners/{ownerId}/memories'].post;
    expect(write.requestBody.content['application/json'].schema.properties).toHaveProperty(
      'origin',
    );
    expect(write.responses['201']).toBeDefined();
  });

  it('serves the docs page as HTML', async () => {
    const r = await apps.user.inject({ method: 'GET', url: '/docs' });
    const page =
      r.statusCode === 302
        ? await apps.user.inject({ method: 'GET', url: r.headers.location as string })
        : r;
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('<html');
    // Never framed (clickjacking a page that sends requests with a pasted key), scripts from here only.
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers['x-frame-options']).toBe('DENY');
    // And the files the page loads carry it too.
    const script = await apps.user.inject({
      method: 'GET',
      url: '/docs/static/swagger-initializer.js',
    });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-security-policy']).toBe(csp);
  });
});

describe('export over HTTP', () => {
  it('pages through the owner held memories, for people only, and refuses a bad page size', async () => {
    const o = owner();
    for (const t of [
      'The user keeps bees on the roof',
      'The user sings tenor in a choir',
      'The user repairs old radios',
    ])
      expect((await postFact(apps.user, o, t)).statusCode).toBe(201);
    const first = await apps.user.inject({ method: 'GET', url: `/v1/owners/${o}/export?limit=2` });
    expect(first.statusCode).toBe(200);
    expect(first.json().memories).toHaveLength(2);
    const next = first.json().next as string;
    expect(typeof next).toBe('string');
    const last = await apps.user.inject({
      method: 'GET',
      url: `/v1/owners/${o}/export?limit=2&after=${encodeURIComponent(next)}`,
    });
    expect(last.json()).toMatchObject({ ownerId: o, next: null });
    const texts = [...first.json().memories, ...last.json().memories].map(
      (m: { text: string }) => m.text,
    );
    expect(texts.sort()).toEqual([
      'The user keeps bees on the roof',
      'The user repairs old radios',
      'The user sings tenor in a choir',
    ]);

    const asTool = await apps.tool.inject({ method: 'GET', url: `/v1/owners/${o}/export` });
    expect(asTool.statusCode).toBe(403);
    expect(asTool.json().error.code).toBe('forbidden_role');
    const bad = await apps.user.inject({ method: 'GET', url: `/v1/owners/${o}/export?limit=0` });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_input');
  });
});

describe('streamed export over HTTP', () => {
  it('streams every held memory as JSON lines across pages, for people only, and imports it back', async () => {
    const o = owner();
    const texts = Array.from(
      { length: 1203 },
      (_, i) => `The user noted fact number ${i} about the garden`,
    );
    for (let i = 0; i < texts.length; i += 1000) {
      const r = await post(apps.user, `/v1/owners/${o}/memories:batch`, {
        memories: texts.slice(i, i + 1000).map((t) => fact(t)),
      });
      expect(r.json().failed).toEqual([]);
    }
    const auditOf = async () => {
      const all: Awaited<ReturnType<typeof runtime.store.listAudit>> = [];
      for (;;) {
        const page = await runtime.store.listAudit({
          ownerId: o,
          limit: 1000,
          ...(all.length && { afterSeq: all.at(-1)!.seq }),
        });
        all.push(...page);
        if (page.length < 1000) return all;
      }
    };
    const before = await auditOf();
    const r = await apps.user.inject({ method: 'GET', url: `/v1/owners/${o}/export.jsonl` });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/x-ndjson/);
    const lines = r.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((m) => m.text).sort()).toEqual([...texts].sort());
    expect(new Set(lines.map((m) => m.id)).size).toBe(texts.length);
    expect(lines[0]).toMatchObject({
      ownerId: o,
      origin: { sessionId: 's-1' },
      derivedFrom: [],
      supersedes: null,
    });
    expect(typeof lines[0]!.expiresAt).toBe('string');
    // Each page of 500 is audited as a read.
    const reads = (await auditOf()).slice(before.length).filter((e) => e.type === 'read');
    expect(reads.map((e) => e.memoryIds.length)).toEqual([500, 500, 203]);

    const to = owner();
    const back = await apps.user.inject({
      method: 'POST',
      url: `/v1/owners/${to}/import`,
      headers: { 'content-type': 'application/x-ndjson' },
      payload: r.body,
    });
    expect(back.json()).toMatchObject({ lines: texts.length, imported: texts.length, refused: 0 });

    const asTool = await apps.tool.inject({ method: 'GET', url: `/v1/owners/${o}/export.jsonl` });
    expect(asTool.statusCode).toBe(403);
    expect(asTool.json().error.code).toBe('forbidden_role');
    const blank = await apps.user.inject({ method: 'GET', url: `/v1/owners/%20/export.jsonl` });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error.code).toBe('owner_required');
    const empty = await apps.user.inject({
      method: 'GET',
      url: `/v1/owners/${owner()}/export.jsonl`,
    });
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toBe('');
  }, 300_000);
});

describe('sessions over HTTP', () => {
  it("reads a session's messages, forgets it after a dry run, and refuses a misspelt dry run", async () => {
    const o = owner();
    const base = `/v1/owners/${o}/sessions/S-http`;
    const appended = await post(apps.user, `${base}/messages`, {
      messages: [{ role: 'user', text: 'Please remember that I am vegetarian' }],
      remember: true,
    });
    expect(appended.statusCode, appended.body).toBe(200);
    const read = await apps.user.inject({ method: 'GET', url: `${base}/messages` });
    expect(read.statusCode).toBe(200);
    expect(read.json().messages.map((m: { text: string }) => m.text)).toEqual([
      'Please remember that I am vegetarian',
    ]);
    const badLimit = await apps.user.inject({ method: 'GET', url: `${base}/messages?limit=0` });
    expect(badLimit.statusCode).toBe(400);
    const typo = await post(apps.user, `${base}/forget`, { dryrun: true });
    expect(typo.statusCode).toBe(400);
    expect(typo.json().error.code).toBe('invalid_input');
    const dry = await post(apps.user, `${base}/forget`, { dryRun: true });
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ dryRun: true, sessionMessages: 1, receipt: null });
    const before = await ownerIds(o);
    expect(before.length).toBeGreaterThan(0);
    expect(dry.json().memoryIds).toEqual([...before].sort());
    const asTool = await post(apps.tool, `${base}/forget`, {});
    expect(asTool.statusCode).toBe(403);
    expect(await ownerIds(o)).toEqual(before);
    // No body is no answer to "dry run?": refused, nothing deleted.
    const bare = await apps.user.inject({ method: 'POST', url: `${base}/forget` });
    expect(bare.statusCode).toBe(400);
    expect(await ownerIds(o)).toEqual(before);
    const done = await post(apps.user, `${base}/forget`, {});
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ dryRun: false, sessionMessages: 1 });
    expect(await ownerIds(o)).toEqual([]);
    expect((await apps.user.inject({ method: 'GET', url: `${base}/messages` })).statusCode).toBe(
      404,
    );
  });
});

describe('listing over HTTP', () => {
  it('lists with filters from the query string, pages, and refuses a bad filter or a superseded list for a user', async () => {
    const o = owner();
    expect((await postFact(apps.user, o, 'The user collects vinyl records')).statusCode).toBe(201);
    expect(
      (
        await postFact(apps.tool, o, 'Order 77 shipped on Monday', {
          origin: { tool: { name: 'orders' } },
        })
      ).statusCode,
    ).toBe(201);
    const get = (q: string, as: KeyedClient = apps.user) =>
      as.inject({ method: 'GET', url: `/v1/owners/${o}/memories?${q}` });
    const byTool = await get('authority=tool&tool=orders');
    expect(byTool.statusCode).toBe(200);
    expect(byTool.json().memories.map((m: { text: string }) => m.text)).toEqual([
      'Order 77 shipped on Monday',
    ]);
    expect((await get('kind=fact,episode&limit=1')).json().memories).toHaveLength(1);
    expect((await get('conflict=false')).json().memories).toHaveLength(2);
    for (const [q, code, status] of [
      ['kind=gossip', 'invalid_input', 400],
      ['conflict=maybe', 'invalid_input', 400],
      ['limit=0', 'invalid_input', 400],
      ['createdAfter=yesterday', 'invalid_input', 400],
      ['includeSuperseded=true', 'forbidden_role', 403],
    ] as const) {
      const r = await get(q);
      expect(r.statusCode, q).toBe(status);
      expect(r.json().error.code, q).toBe(code);
    }
    expect((await get('includeSuperseded=true', apps.operator)).statusCode).toBe(200);
  });
});

describe('import over HTTP', () => {
  it('imports an exported owner as JSONL with a report per line: stored, invalid and refused lines by number', async () => {
    const from = owner();
    const to = owner();
    for (const t of ['The user bakes sourdough bread', 'The user cycles to work'])
      expect((await postFact(apps.user, from, t)).statusCode).toBe(201);
    const exported = (
      await apps.user.inject({ method: 'GET', url: `/v1/owners/${from}/export` })
    ).json();
    const jsonl = [
      ...exported.memories.map((m: unknown) => JSON.stringify(m)),
      '',
      'not json at all',
      JSON.stringify({
        kind: 'fact',
        text: `the key is ${['AKIA', 'IOSFODNN7EXAMPLE'].join('')}`,
        origin: { sessionId: 'x' },
      }),
    ].join('\n');
    const r = await apps.user.inject({
      method: 'POST',
      url: `/v1/owners/${to}/import`,
      headers: { 'content-type': 'application/x-ndjson' },
      payload: jsonl,
    });
    expect(r.statusCode).toBe(200);
    const report = r.json();
    expect(report).toMatchObject({ lines: 4, imported: 2, refused: 2, skippedDerived: 0 });
    expect(report.failures.map((f: { line: number; code: string }) => [f.line, f.code])).toEqual([
      [4, 'invalid_json'],
      [5, 'refused_secret'],
    ]);
    expect(report.stored.map((s: { line: number }) => s.line)).toEqual([1, 2]);
    const back = (await apps.user.inject({ method: 'GET', url: `/v1/owners/${to}/export` })).json();
    expect(back.memories.map((m: { text: string }) => m.text).sort()).toEqual([
      'The user bakes sourdough bread',
      'The user cycles to work',
    ]);
    // As JSON, and a body that is not an import: 400 with nothing written.
    const asJson = await post(apps.user, `/v1/owners/${to}/import`, { lines: [], firstLine: 1 });
    expect(asJson.json()).toMatchObject({ lines: 0, imported: 0 });
    const bad = await post(apps.user, `/v1/owners/${to}/import`, { rows: ['x'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_input');
  });
});
