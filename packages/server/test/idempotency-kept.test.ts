// What an Idempotency-Key's kept answer is, over HTTP, on both stores: it is
// replayed only to the credential that got it (the same principal, role and
// owners), after the route's role and owner checks pass, so a JWT whose
// claims were narrowed gets its 403 and two long subs sharing a prefix are
// two callers; and the store keeps nothing a refused or forgotten request
// carried: not a property name quoted by an error, not a session id quoted
// by a 404, not the key itself, not the id of a session since forgotten.
// Each leak is looked for in the raw store (the SQLite files after a
// checkpoint, every Neo4j node and relationship).
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { REPLAYED_ERROR_MESSAGE, type Role } from '@keepgraph/core';
import { createHashingEmbedder } from '@keepgraph/embedder';
import { type EmbeddedRuntime, STORE_KINDS } from '@keepgraph/runtime';
import type { SqliteMemoryStore } from '@keepgraph/store-sqlite';
import { rawContent as sqliteRaw } from '@keepgraph/store-sqlite/testing';
import type { Neo4jMemoryStore } from '@keepgraph/store-neo4j';
import { rawContent as neo4jRaw } from '@keepgraph/store-neo4j/testing';
import { buildApp } from '../src/app.ts';
import { jwtPrincipal, jwtVerifier } from '../src/auth/jwt.ts';
import { scratchRuntime } from './helpers.ts';
import { makeKey } from './keyed-clients.ts';
import { storeSelectionFor } from '../../../test/e2e/stores.ts';

const ISSUER = 'https://idp.example/';
const AUDIENCE = 'keepgraph';
const SECRET = randomBytes(32).toString('hex');

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Random letters and digits: the body of a secret-shaped needle. */
const alnum = (n: number) => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');
/** Letters only: owner ids pass the write gate (digit runs can read as phone numbers). */
const letters = (n: number) =>
  Array.from(randomBytes(n), (b) => String.fromCharCode(97 + (b % 26))).join('');

const fact = (text: string, sessionId = 'kept-s') => ({
  kind: 'fact',
  text,
  origin: { sessionId },
});

describe.each(STORE_KINDS)('kept answers of Idempotency-Keys on %s', (store) => {
  let runtime: EmbeddedRuntime;
  let app: FastifyInstance;
  let userKey = '';
  const run = letters(8);
  const alice = `alice-${run}`;
  const bob = `bob-${run}`;

  beforeAll(async () => {
    runtime = await scratchRuntime(`kg-kept-${store}-`, {
      store: storeSelectionFor(store),
      // Who may replay what does not depend on what a text means.
      embedder: createHashingEmbedder(384),
    });
    app = buildApp({
      engine: runtime.engine,
      auth: {
        jwt: jwtVerifier({ secret: SECRET, issuer: ISSUER, audience: AUDIENCE }),
        rateLimitPerMinute: 0,
        authFailuresPerMinute: 0,
      },
    });
    await app.ready();
    userKey = await makeKey(runtime.engine, 'user', [alice, bob]);
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await runtime?.close();
  });

  const token = (sub: string, role: Role, owners: string[]) =>
    new SignJWT({ keepgraph_role: role, keepgraph_owners: owners })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(sub)
      // Two tokens of one sub and claims are still two tokens.
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(SECRET));

  async function send(
    bearer: string,
    method: 'POST' | 'GET',
    url: string,
    payload?: unknown,
    key?: string,
  ) {
    const r = await app.inject({
      method,
      url: `/v1${url}`,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(key !== undefined && { 'idempotency-key': key }),
      },
      ...(payload !== undefined && { payload: payload as object }),
    });
    return {
      status: r.statusCode,
      replayed: (r.headers['idempotent-replayed'] as string | undefined) ?? null,
      json: r.json() as any, // eslint-disable-line @typescript-eslint/no-explicit-any
    };
  }
  /** Status, Idempotent-Replayed and error code: what tells a refusal from a replay. */
  const outcome = (r: Awaited<ReturnType<typeof send>>) => [
    r.status,
    r.replayed,
    r.json.error?.code,
  ];
  const write = (bearer: string, owner: string, body: unknown, key?: string) =>
    send(bearer, 'POST', `/owners/${owner}/memories`, body, key);
  const count = async (owner: string) => (await runtime.store.counts({ ownerId: owner })).memories;

  /** Every byte the store keeps (the SQLite files after a checkpoint; every Neo4j node). */
  const raw = () =>
    store === 'sqlite'
      ? sqliteRaw(runtime.store as SqliteMemoryStore)
      : neo4jRaw(runtime.store as Neo4jMemoryStore);
  const expectNotStored = async (needle: string) =>
    expect((await raw()).includes(Buffer.from(needle)), `${needle} is in the raw store`).toBe(
      false,
    );

  describe('who a kept answer is replayed to', () => {
    it('two JWT subs sharing their first 200 characters are two callers', async () => {
      const prefix = `sub-${run}-`.padEnd(200, 'x');
      const [subA, subB] = [`${prefix}a`, `${prefix}b`];
      expect(jwtPrincipal(subA)).toMatch(/^jwt:sha256:[0-9a-f]{64}$/);
      expect(jwtPrincipal(subA)).not.toBe(jwtPrincipal(subB));
      const a = await token(subA, 'user', [alice]);
      const b = await token(subB, 'user', [alice]);
      const key = randomUUID();
      const body = fact('The reading group meets in the library annex');
      const before = await count(alice);
      const first = await write(a, alice, body, key);
      expect([first.status, first.replayed]).toEqual([201, 'false']);
      const other = await write(b, alice, body, key);
      expect([other.status, other.replayed]).toEqual([201, 'false']);
      expect(other.json.memory.id).not.toBe(first.json.memory.id);
      // Each one's own repeat is still its own replay.
      const again = await write(a, alice, body, key);
      expect(again).toEqual({ ...first, replayed: 'true' });
      expect(await count(alice)).toBe(before + 2);
      const who = await send(b, 'GET', '/whoami');
      expect(who.json.principal).toBe(jwtPrincipal(subB));
    });

    it('a sub whose claims were narrowed gets the 403 its new claims earn, not the replay', async () => {
      const sub = `ana-${run}`;
      const key = randomUUID();
      const body = fact('The quarterly plan was approved on Monday');
      const before = await count(alice);
      const first = await write(await token(sub, 'user', [alice]), alice, body, key);
      expect([first.status, first.replayed]).toEqual([201, 'false']);

      const analyst = await write(await token(sub, 'analyst', [bob]), alice, body, key);
      expect(outcome(analyst)).toEqual([403, null, 'forbidden_role']);
      const elsewhere = await write(await token(sub, 'user', [bob]), alice, body, key);
      expect(outcome(elsewhere)).toEqual([403, null, 'owner_out_of_scope']);
      // A fresh token with the first one's claims is the same caller: replayed.
      const refreshed = await write(await token(sub, 'user', [alice]), alice, body, key);
      expect(refreshed).toEqual({ ...first, replayed: 'true' });
      expect(await count(alice)).toBe(before + 1);
    });

    it('a replay for an owner no longer in the scope is refused', async () => {
      const sub = `bea-${run}`;
      const key = randomUUID();
      const body = fact('The bakery order goes out every Friday morning');
      const first = await write(await token(sub, 'user', [alice, bob]), bob, body, key);
      expect([first.status, first.replayed]).toEqual([201, 'false']);
      const narrowed = await write(await token(sub, 'user', [alice]), bob, body, key);
      expect(outcome(narrowed)).toEqual([403, null, 'owner_out_of_scope']);
      // Its owners in another order are the same scope.
      const same = await write(await token(sub, 'user', [bob, alice]), bob, body, key);
      expect(same).toEqual({ ...first, replayed: 'true' });
    });
  });

  describe('what a kept answer keeps', () => {
    it('not a secret-shaped property name that an invalid_input message quotes', async () => {
      const secret = `ghp_${alnum(36)}`;
      const key = randomUUID();
      const body = { ...fact('A note about the garden shed roof'), [secret]: true };
      const first = await write(userKey, alice, body, key);
      expect([first.status, first.json.error.code]).toEqual([400, 'invalid_input']);
      // The answer does quote it, so the check below is not vacuous.
      expect(JSON.stringify(first.json)).toContain(secret);
      await expectNotStored(secret);
      const again = await write(userKey, alice, body, key);
      expect([again.status, again.json.error.code]).toEqual([400, 'invalid_input']);
      await expectNotStored(secret);
    });

    it("not a secret-shaped session id that a 404's message quotes; the replay says it is one", async () => {
      const secret = `sk_live_${alnum(24)}`;
      const key = randomUUID();
      const url = `/owners/${alice}/sessions/${secret}/forget`;
      const first = await send(userKey, 'POST', url, {}, key);
      expect(outcome(first)).toEqual([404, 'false', 'not_found']);
      expect(first.json.error.message).toContain(secret);
      await expectNotStored(secret);
      const again = await send(userKey, 'POST', url, {}, key);
      expect(again).toEqual({
        status: 404,
        replayed: 'true',
        json: { error: { code: 'not_found', message: REPLAYED_ERROR_MESSAGE } },
      });
    });

    it('not the Idempotency-Key itself, even when a secret was sent as one', async () => {
      const secret = `ghp_${alnum(36)}`;
      const body = fact('The lift on the east side is closed for repairs');
      const first = await write(userKey, alice, body, secret);
      expect([first.status, first.replayed]).toEqual([201, 'false']);
      await expectNotStored(secret);
      expect(await write(userKey, alice, body, secret)).toEqual({ ...first, replayed: 'true' });
    });

    it('not the id of a session it forgot; the replay gives it back from the URL', async () => {
      const sessionId = `sess-${letters(16)}`;
      const written = await write(
        userKey,
        alice,
        fact('The boiler was serviced in March', sessionId),
      );
      expect(written.status).toBe(201);
      const key = randomUUID();
      const url = `/owners/${alice}/sessions/${sessionId}/forget`;
      const first = await send(userKey, 'POST', url, {}, key);
      expect([first.status, first.replayed]).toEqual([200, 'false']);
      expect(first.json).toMatchObject({ ownerId: alice, sessionId, dryRun: false });
      expect(first.json.memoryIds).toContain(written.json.memory.id);
      await expectNotStored(sessionId);
      const again = await send(userKey, 'POST', url, {}, key);
      expect(again).toEqual({ ...first, replayed: 'true' });
    });
  });
});
