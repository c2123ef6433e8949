// Memory routes: write one, write a batch, read one, its lineage, delete one.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { KeepGraphError } from '@keepgraph/core';
import { MemoryBatchBody, MemoryBody, MemoryParams, OwnerParams } from '../schemas/requests.ts';
import {
  MemoryOut,
  ReceiptOut,
  RememberManyOut,
  RememberOut,
  SerializedGraphOut,
  withErrors,
} from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

/**
 * Bigger than the default body limit: a batch carries up to 1000 memories.
 * Single writes keep the small limit so oversized text is refused early.
 */
export const BATCH_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export const memoryRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { engine, callerOf },
) => {
  app.post(
    '/owners/:ownerId/memories',
    {
      schema: {
        tags: ['memories'],
        summary: 'Store one memory (through the policy gate)',
        params: OwnerParams,
        body: MemoryBody,
        response: withErrors({ 201: RememberOut }),
      },
    },
    async (request, reply) => {
      const result = await engine.remember(callerOf(request), request.params.ownerId, request.body);
      return reply.status(201).send(result);
    },
  );

  // `::` is find-my-way's escape for a literal colon (Google-style custom method).
  app.post(
    '/owners/:ownerId/memories::batch',
    {
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      schema: {
        tags: ['memories'],
        summary: 'Store many memories; refusals are reported by index and do not stop the rest',
        params: OwnerParams,
        body: MemoryBatchBody,
        response: withErrors({ 200: RememberManyOut }),
      },
    },
    async (request) => {
      const { memories } = request.body as { memories?: unknown };
      // The engine validates each item; the list itself is ours to check.
      if (!Array.isArray(memories)) {
        throw new KeepGraphError('invalid_input', 'memories: must be a list of memories', {
          issues: [{ path: 'memories', message: 'must be a list of memories' }],
        });
      }
      return engine.rememberMany(callerOf(request), request.params.ownerId, memories);
    },
  );

  app.get(
    '/owners/:ownerId/memories/:id',
    {
      schema: {
        tags: ['memories'],
        summary: 'Read one memory of this owner',
        params: MemoryParams,
        response: withErrors({ 200: MemoryOut }),
      },
    },
    async (request) => engine.get(callerOf(request), request.params.ownerId, request.params.id),
  );

  app.get(
    '/owners/:ownerId/memories/:id/lineage',
    {
      schema: {
        tags: ['memories'],
        summary: 'The derivation graph from a memory down to its episodes (graphology format)',
        params: MemoryParams,
        response: withErrors({ 200: SerializedGraphOut }),
      },
    },
    async (request) => engine.lineage(callerOf(request), request.params.ownerId, request.params.id),
  );

  app.delete(
    '/owners/:ownerId/memories/:id',
    {
      schema: {
        tags: ['forget'],
        summary: 'Forget a memory and everything derived from it; answers with a receipt',
        params: MemoryParams,
        response: withErrors({ 200: ReceiptOut }),
      },
    },
    async (request) =>
      engine.forget(callerOf(request), request.params.ownerId, [request.params.id]),
  );
};
