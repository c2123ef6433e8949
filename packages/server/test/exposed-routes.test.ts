// The routes derived from exposed use-cases (routes/exposed.ts), on core's
// two made-up rows (bindingProbes): a GET whose query is one object
// argument (numbers and booleans read as such) and a POST whose body fields
// and path parameters are arguments in the engine method's order. The
// engine records the arguments it is called with; the shipped exposed row
// (ownerStats) is proven end to end in test/e2e/exposed-use-cases.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Engine } from '@keepgraph/core';
import { bindingProbes } from '@keepgraph/core/testing';
import { exposedRoutes } from '../src/routes/exposed.ts';
import { registerUseCaseRoutes } from '../src/routes/use-case-route.ts';

// The engine answers the arguments it is called with.
const engine = new Proxy({} as Engine, {
  get: (_t, prop) =>
    prop === 'then' ? undefined : async (_caller: unknown, ...args: unknown[]) => ({ args }),
});

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerUseCaseRoutes(app, exposedRoutes(bindingProbes()), {
    engine,
    callerOf: () => ({ role: 'operator', owners: 'all', principal: 'test' }),
  });
  await app.ready();
});
afterAll(() => app.close());

describe('routes derived from exposed use-cases', () => {
  it('reads a GET query as the one object argument, numbers and booleans as such', async () => {
    const r = await app.inject({ method: 'GET', url: '/owners/o1/probe?limit=5&exact=true&tag=x' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ args: ['o1', { limit: 5, exact: true, tag: 'x' }] });
    const bare = await app.inject({ method: 'GET', url: '/owners/o1/probe' });
    expect(bare.json()).toEqual({ args: ['o1'] });
  });

  it('reads path parameters and body fields into the engine order, with the declared status', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/owners/o1/things/t9',
      payload: { note: 'remember the milk', weight: 2 },
    });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toEqual({ args: ['o1', 'remember the milk', 't9', 2] });
  });
});
