// Every route under /v1 comes from core's use-case registry: it names a
// use-case (`config.useCase`), a request to it runs exactly that engine
// method, and every use-case is reachable over HTTP. The engine here records
// which method a request ran and stops it there, so no store is needed: what
// is tested is the binding, not the use-case.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { KeepGraphError, USE_CASES, type Engine, type UseCaseName } from '@keepgraph/core';
import { defaultPolicy } from '@keepgraph/core/policy';
import { buildApp } from '../src/app.ts';
import { NOT_USE_CASE_ROUTES } from '../src/routes/operate.ts';

const ran: string[] = [];
const engine = new Proxy({} as Engine, {
  get(_t, prop) {
    if (prop === 'then') return undefined;
    // The app reads the policy's limits (the answer's ceiling) and what serves.
    if (prop === 'services')
      return { serving: { store: 'none', model: 'none' }, limits: defaultPolicy().limits };
    return async () => {
      ran.push(String(prop));
      throw new KeepGraphError('not_found', 'stopped by the test engine');
    };
  },
});

interface SeenRoute {
  method: string;
  url: string;
  useCase: UseCaseName | undefined;
}
const routes: SeenRoute[] = [];
let app: FastifyInstance;

beforeAll(async () => {
  app = buildApp({
    engine,
    auth: { trustedCaller: { role: 'operator', owners: 'all', principal: 'test' } },
  });
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) {
      if (method === 'HEAD') continue;
      routes.push({ method, url: r.url, useCase: r.config?.useCase });
    }
  });
  await app.ready();
});
afterAll(() => app.close());

const v1 = () => routes.filter((r) => r.url.startsWith('/v1/'));

/** A URL for a route pattern: every parameter filled ("1" fits ids and seqs alike). */
const concrete = (pattern: string) => pattern.replace(/::|:\w+/g, (m) => (m === '::' ? ':' : '1'));

// One body every route accepts far enough to reach the engine: each route
// takes the fields it reads; the engine would validate them.
const body = {
  ids: ['1'],
  memories: [{}],
  query: 'q',
  messages: [],
  uri: 'https://x.test/',
  text: 'a corrected claim',
  reason: 'incorrect',
};

describe('routes come from the use-case registry', () => {
  it('every route under /v1 names a registry use-case, or is listed as not one', () => {
    expect(v1().length).toBeGreaterThanOrEqual(Object.keys(USE_CASES).length);
    for (const r of v1()) {
      const key = `${r.method} ${r.url.slice('/v1'.length)}`;
      if ((NOT_USE_CASE_ROUTES as readonly string[]).includes(key)) {
        expect(r.useCase, key).toBeUndefined();
        continue;
      }
      expect(r.useCase && r.useCase in USE_CASES, key).toBe(true);
    }
  });

  it('every use-case of the registry is reachable over HTTP', () => {
    const bound = new Set(v1().map((r) => r.useCase));
    expect(Object.keys(USE_CASES).filter((n) => !bound.has(n as UseCaseName))).toEqual([]);
  });

  it('a request to a route runs exactly the use-case it names, once', async () => {
    for (const r of v1().filter((x) => x.useCase)) {
      ran.length = 0;
      const res = await app.inject({
        method: r.method as 'GET',
        url: concrete(r.url),
        ...(['POST', 'PUT', 'PATCH'].includes(r.method) && { payload: body }),
      });
      expect(res.json(), `${r.method} ${r.url}`).toMatchObject({ error: { code: 'not_found' } });
      expect(ran, `${r.method} ${r.url}`).toEqual([r.useCase]);
    }
  });
});
