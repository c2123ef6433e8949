// Session routes: append to the short-term buffer, and read the context an
// answer-writing agent needs (buffer plus long-term recall, labelled apart).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RecallOptions } from '@keepgraph/core';
import {
  SessionAppendBody,
  SessionContextQuery,
  SessionMessageParams,
  SessionParams,
} from '../schemas/requests.ts';
import {
  SessionAppendOut,
  SessionContextOut,
  SessionDeletionOut,
  withErrors,
} from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

export const sessionRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { engine, callerOf },
) => {
  app.post(
    '/owners/:ownerId/sessions/:sessionId/messages',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Append messages to the session buffer (each passes the session gate)',
        params: SessionParams,
        body: SessionAppendBody,
        response: withErrors({ 200: SessionAppendOut }),
      },
    },
    async (request) =>
      engine.sessionAppend(
        callerOf(request),
        request.params.ownerId,
        request.params.sessionId,
        request.body,
      ),
  );

  app.get(
    '/owners/:ownerId/sessions/:sessionId/context',
    {
      schema: {
        tags: ['sessions'],
        summary: 'The session buffer and, for a query, long-term recall',
        params: SessionParams,
        querystring: SessionContextQuery,
        response: withErrors({ 200: SessionContextOut }),
      },
    },
    async (request) => {
      const { query, ...rest } = request.query;
      // The engine validates the recipe name and topK.
      const opts = Object.fromEntries(
        Object.entries(rest).filter(([, v]) => v !== undefined),
      ) as RecallOptions;
      return engine.sessionContext(
        callerOf(request),
        request.params.ownerId,
        request.params.sessionId,
        query,
        opts,
      );
    },
  );

  app.delete(
    '/owners/:ownerId/sessions/:sessionId',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Delete a session from the buffer (its long-term memories stay; forget those by id)',
        params: SessionParams,
        response: withErrors({ 200: SessionDeletionOut }),
      },
    },
    async (request) =>
      engine.deleteSession(callerOf(request), request.params.ownerId, request.params.sessionId),
  );

  app.delete(
    '/owners/:ownerId/sessions/:sessionId/messages/:seq',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Delete one message of a session, by the seq the context returns',
        params: SessionMessageParams,
        response: withErrors({ 200: SessionDeletionOut }),
      },
    },
    async (request) =>
      engine.deleteSession(
        callerOf(request),
        request.params.ownerId,
        request.params.sessionId,
        request.params.seq,
      ),
  );
};
