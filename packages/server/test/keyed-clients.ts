// Test clients of one app with real authentication: an API key per role
// (created through the engine, as `keys create` does), each client sending
// its key as a Bearer token on every inject().
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Caller, Engine, Role } from '@keepgraph/core';
import { buildApp, type AppOptions } from '../src/app.ts';

export interface KeyedClient {
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** The key this client sends. */
  key: string;
  app: FastifyInstance;
}

const MAKER: Caller = { role: 'operator', owners: 'all', principal: 'test:setup' };

/** Create a key as the data directory's operator would. */
export async function makeKey(
  engine: Engine,
  role: Role,
  owners: 'all' | string[] = 'all',
  name = `test ${role}`,
): Promise<string> {
  return (await engine.createKey(MAKER, { name, role, owners })).key;
}

export function keyed(app: FastifyInstance, key: string): KeyedClient {
  return {
    key,
    app,
    inject: (opts) =>
      app.inject({
        ...opts,
        headers: { ...(opts.headers ?? {}), authorization: `Bearer ${key}` },
      }),
  };
}

/** One app over `engine` and a client per role, each with an all-owners key. */
export async function keyedClients<const R extends readonly Role[]>(
  engine: Engine,
  roles: R,
  opts: Omit<AppOptions, 'engine'> = {},
): Promise<{ app: FastifyInstance; clients: Record<R[number], KeyedClient> }> {
  const app = buildApp({ engine, ...opts });
  await app.ready();
  const clients = {} as Record<R[number], KeyedClient>;
  for (const role of roles) clients[role as R[number]] = keyed(app, await makeKey(engine, role));
  return { app, clients };
}
