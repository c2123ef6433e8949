// Key-value routes: the current value under (owner, key), with any
// lower-authority conflicting claims kept beside it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { KeepGraphError, type MemoryInput } from '@keepgraph/core';
import { KeyParams, KvPutBody } from '../schemas/requests.ts';
import { KvOut, RememberOut, withErrors } from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

type PutInput = Omit<MemoryInput, 'key' | 'kind'> & { kind?: MemoryInput['kind'] };

export const kvRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { engine, callerOf }) => {
  app.get(
    '/owners/:ownerId/kv/:key',
    {
      schema: {
        tags: ['kv'],
        summary: "The owner's current value under a key (never another owner's)",
        params: KeyParams,
        response: withErrors({ 200: KvOut }),
      },
    },
    async (request) => {
      const r = await engine.getByKey(
        callerOf(request),
        request.params.ownerId,
        request.params.key,
      );
      if (r.current === null && r.conflicts.length === 0) {
        throw new KeepGraphError(
          'not_found',
          `no value under key ${request.params.key} for this owner`,
        );
      }
      return r;
    },
  );

  app.put(
    '/owners/:ownerId/kv/:key',
    {
      schema: {
        tags: ['kv'],
        summary:
          'Put a value under a key; supersedes the current one unless that has higher authority',
        params: KeyParams,
        body: KvPutBody,
        response: withErrors({ 200: RememberOut }),
      },
    },
    // The engine parses the whole input (the key from the URL wins over any in the body).
    async (request) =>
      engine.putByKey(
        callerOf(request),
        request.params.ownerId,
        request.params.key,
        request.body as PutInput,
      ),
  );
};
