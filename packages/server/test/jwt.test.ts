// JWTs from an identity provider's JWKS (served here on 127.0.0.1 by a plain
// HTTP server), through the app's real authentication: a good token is its
// claims' role and owners; `alg: none`, a wrong audience or issuer, an
// expired token, another key's signature and an HMAC token keyed with the
// public key (algorithm confusion) are all 401.
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { SignJWT, UnsecuredJWT, exportJWK, exportSPKI, generateKeyPair, type JWK } from 'jose';
import { createTransformersEmbedder } from '@keepgraph/embedder';
import { openEmbeddedRuntime, type EmbeddedRuntime } from '@keepgraph/runtime';
import { buildApp } from '../src/app.ts';
import { jwtPrincipal, jwtVerifier } from '../src/auth/jwt.ts';

const ISSUER = 'https://idp.example/';
const AUDIENCE = 'keepgraph';
let dir: string;
let runtime: EmbeddedRuntime;
let app: FastifyInstance;
let jwks: Server;
let keys: Awaited<ReturnType<typeof generateKeyPair>>;
let strangers: Awaited<ReturnType<typeof generateKeyPair>>;
let fetches = 0;

const claims = { keepgraph_role: 'analyst', keepgraph_owners: ['o-1'] };
const sign = (
  key: CryptoKey,
  over: {
    aud?: string;
    iss?: string;
    exp?: number | string;
    sub?: string;
    alg?: string;
    body?: object;
  } = {},
) =>
  new SignJWT({ ...claims, ...over.body })
    .setProtectedHeader({ alg: over.alg ?? 'RS256', kid: 'k1' })
    .setIssuer(over.iss ?? ISSUER)
    .setAudience(over.aud ?? AUDIENCE)
    .setSubject(over.sub ?? 'ana')
    .setIssuedAt()
    .setExpirationTime(over.exp ?? '10m')
    .sign(key);

beforeAll(async () => {
  keys = await generateKeyPair('RS256', { extractable: true });
  strangers = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = createServer((_req, res) => {
    fetches++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((ok) => jwks.listen(0, '127.0.0.1', ok));
  const { port } = jwks.address() as AddressInfo;
  dir = await mkdtemp(join(tmpdir(), 'keepgraph-jwt-'));
  runtime = await openEmbeddedRuntime({
    dataDir: dir,
    embedder: await createTransformersEmbedder(),
    sweepIntervalMs: null,
  });
  app = buildApp({
    engine: runtime.engine,
    auth: {
      jwt: jwtVerifier({
        jwksUrl: `http://127.0.0.1:${port}/jwks`,
        issuer: ISSUER,
        audience: AUDIENCE,
      }),
    },
  });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await new Promise((ok) => jwks?.close(ok));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const recall = (token: string, owner = 'o-1') =>
  app.inject({
    method: 'POST',
    url: `/v1/owners/${owner}/recall`,
    headers: { authorization: `Bearer ${token}` },
    payload: { query: 'anything' },
  });
const kpis = (token: string, owner: string) =>
  app.inject({
    method: 'GET',
    url: `/v1/kpis?ownerId=${owner}`,
    headers: { authorization: `Bearer ${token}` },
  });

describe('JWTs checked against a JWKS', () => {
  it('authenticates a good token as its claims say: an analyst reads its owners and writes nothing', async () => {
    const token = await sign(keys.privateKey);
    expect((await recall(token)).statusCode).toBe(200);
    expect((await kpis(token, 'o-1')).statusCode).toBe(200);
    const out = await kpis(token, 'o-2');
    expect(out.statusCode).toBe(403);
    expect(out.json().error.code).toBe('owner_out_of_scope');
    const write = await app.inject({
      method: 'POST',
      url: '/v1/owners/o-1/memories',
      headers: { authorization: `Bearer ${token}` },
      payload: { kind: 'fact', text: 'An analyst may not write this.', origin: { sessionId: 's' } },
    });
    expect(write.statusCode).toBe(403);
    expect(write.json().error.code).toBe('forbidden_role');
    expect(await runtime.store.countMemories('o-1')).toBe(0);
    expect(fetches).toBeGreaterThan(0);
  });

  it('refuses alg none, wrong audience or issuer, expiry, a stranger key, algorithm confusion and bad claims with 401', async () => {
    const spki = await exportSPKI(keys.publicKey);
    const confused = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('ana')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(spki));
    const unsigned = new UnsecuredJWT(claims)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('ana')
      .setExpirationTime('10m')
      .encode();
    const bad = {
      'alg none': unsigned,
      'wrong audience': await sign(keys.privateKey, { aud: 'someone-else' }),
      'wrong issuer': await sign(keys.privateKey, { iss: 'https://evil.example/' }),
      expired: await sign(keys.privateKey, { exp: Math.floor(Date.now() / 1000) - 10 }),
      'a stranger key': await sign(strangers.privateKey),
      'HMAC with the public key': confused,
      'unknown role': await sign(keys.privateKey, { body: { keepgraph_role: 'root' } }),
      'operator for some owners': await sign(keys.privateKey, {
        body: { keepgraph_role: 'operator' },
      }),
      'no owners': await sign(keys.privateKey, { body: { keepgraph_owners: undefined } }),
      // "all" is an operator's scope only (README): a token of another role naming it is refused, not narrowed.
      ...Object.fromEntries(
        await Promise.all(
          (['analyst', 'user', 'agent', 'tool'] as const).map(
            async (role): Promise<[string, string]> => [
              `every owner for an ${role}`,
              await sign(keys.privateKey, {
                body: { keepgraph_role: role, keepgraph_owners: 'all' },
              }),
            ],
          ),
        ),
      ),
      truncated: (await sign(keys.privateKey)).slice(0, -5),
      'a sub with a lone surrogate': await sign(keys.privateKey, { sub: 'ana\ud800' }),
    };
    for (const [what, token] of Object.entries(bad)) {
      const r = await recall(token);
      expect(r.statusCode, what).toBe(401);
      expect(r.json().error.code, what).toBe('unauthenticated');
    }
    const operator = await sign(keys.privateKey, {
      body: { keepgraph_role: 'operator', keepgraph_owners: 'all' },
    });
    expect((await recall(operator, 'o-2')).statusCode).toBe(200);
  });
});

describe('the principal of a sub', () => {
  it('is jwt:<sub> for a short sub, and the sub whole, hashed, for a long one', async () => {
    expect(jwtPrincipal('ana')).toBe('jwt:ana');
    const long = 'x'.repeat(200);
    expect(jwtPrincipal(long)).toBe(`jwt:${long}`);
    const a = jwtPrincipal(`${long}a`);
    expect(a).toMatch(/^jwt:sha256:[0-9a-f]{64}$/);
    expect(a).not.toBe(jwtPrincipal(`${long}b`));
    // A short sub cannot name a long sub's principal.
    const spoof = `sha256:${a.slice('jwt:sha256:'.length)}`;
    expect(jwtPrincipal(spoof)).not.toBe(a);
    expect(jwtPrincipal(spoof)).toMatch(/^jwt:sha256:[0-9a-f]{64}$/);
    const who = await app.inject({
      method: 'GET',
      url: '/v1/whoami',
      headers: { authorization: `Bearer ${await sign(keys.privateKey, { sub: `${long}a` })}` },
    });
    expect(who.json().principal).toBe(a);
  });
});

describe('rate limits and CORS', () => {
  it('answers 429 with Retry-After once a key passes its requests a minute; other keys go on', async () => {
    const limited = buildApp({ engine: runtime.engine, auth: { rateLimitPerMinute: 3 } });
    try {
      const op = { role: 'operator' as const, owners: 'all' as const, principal: 'test:setup' };
      const k1 = (await runtime.engine.createKey(op, { name: 'r1', role: 'user', owners: 'all' }))
        .key;
      const k2 = (await runtime.engine.createKey(op, { name: 'r2', role: 'user', owners: 'all' }))
        .key;
      const ask = (key: string) =>
        limited.inject({
          method: 'GET',
          url: '/v1/owners/o-1/kv/missing',
          headers: { authorization: `Bearer ${key}` },
        });
      for (let i = 0; i < 3; i++) expect((await ask(k1)).statusCode).toBe(404);
      const r = await ask(k1);
      expect(r.statusCode).toBe(429);
      expect(r.json().error.code).toBe('rate_limited');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect((await ask(k2)).statusCode).toBe(404);
    } finally {
      await limited.close();
    }
  });

  it('sends no CORS headers unless origins are configured, then only for those', async () => {
    const preflight = (a: FastifyInstance, origin: string) =>
      a.inject({
        method: 'OPTIONS',
        url: '/v1/keys',
        headers: { origin, 'access-control-request-method': 'GET' },
      });
    const bare = await preflight(app, 'https://evil.example');
    expect(bare.headers['access-control-allow-origin']).toBeUndefined();
    const withCors = buildApp({ engine: runtime.engine, corsOrigins: ['https://ui.example'] });
    try {
      const ok = await preflight(withCors, 'https://ui.example');
      expect(ok.statusCode).toBeLessThan(300);
      expect(ok.headers['access-control-allow-origin']).toBe('https://ui.example');
      expect(
        (await preflight(withCors, 'https://evil.example')).headers['access-control-allow-origin'],
      ).toBeUndefined();
    } finally {
      await withCors.close();
    }
  });

  it('lets an allowed origin send every method the API answers, and read Retry-After and idempotent-replayed', async () => {
    const withCors = buildApp({
      engine: runtime.engine,
      corsOrigins: ['https://ui.example'],
      auth: { rateLimitPerMinute: 1 },
    });
    try {
      for (const method of ['PATCH', 'PUT', 'DELETE', 'POST']) {
        const r = await withCors.inject({
          method: 'OPTIONS',
          url: '/v1/owners/o-1/memories/m-1',
          headers: {
            origin: 'https://ui.example',
            'access-control-request-method': method,
            'access-control-request-headers': 'authorization, content-type, idempotency-key',
          },
        });
        expect(r.statusCode, method).toBeLessThan(300);
        const allowed = String(r.headers['access-control-allow-methods'])
          .split(/\s*,\s*/)
          .map((m) => m.toUpperCase());
        expect(allowed, method).toContain(method);
        expect(String(r.headers['access-control-allow-headers']).toLowerCase()).toContain(
          'idempotency-key',
        );
      }
      // Answers, refusals included, name the headers a page's script may read:
      // a 401, and a 429 whose Retry-After the page needs.
      const op = { role: 'operator' as const, owners: 'all' as const, principal: 'test:setup' };
      const key = (
        await runtime.engine.createKey(op, { name: 'cors', role: 'user', owners: ['o-1'] })
      ).key;
      const ask = (authorization?: string) =>
        withCors.inject({
          method: 'GET',
          url: '/v1/owners/o-1/kv/missing',
          headers: { origin: 'https://ui.example', ...(authorization && { authorization }) },
        });
      const unauthenticated = await ask();
      expect((await ask(`Bearer ${key}`)).statusCode).toBe(404);
      const limited = await ask(`Bearer ${key}`);
      expect([unauthenticated.statusCode, limited.statusCode]).toEqual([401, 429]);
      for (const answer of [unauthenticated, limited]) {
        expect(answer.headers['access-control-allow-origin']).toBe('https://ui.example');
        const exposed = String(answer.headers['access-control-expose-headers'])
          .toLowerCase()
          .split(/\s*,\s*/);
        expect(exposed).toEqual(expect.arrayContaining(['retry-after', 'idempotent-replayed']));
      }
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await withCors.close();
    }
  });
});
