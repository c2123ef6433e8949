// Session routes: list an owner's sessions, append to the short-term buffer,
// read its messages or the context an answer-writing agent needs (buffer
// plus long-term recall, labelled apart), delete a session's messages or one
// of them, and forget a session with everything it produced (dry run first).
import {
  SessionAppendResultSchema,
  SessionContextSchema,
  SessionDeletionSchema,
  SessionForgettingSchema,
  SessionMessagesSchema,
  type RecallOptions,
} from '@keepgraph/core';
import * as req from '../schemas/requests.ts';
import * as res from '../schemas/responses.ts';
import { definedOnly, routeFamily, useCaseRoute } from './use-case-route.ts';

export const sessionRoutes = routeFamily('sessions', [
  useCaseRoute('listSessions')({
    route: 'GET /owners/:ownerId/sessions',
    summary:
      "The owner's sessions with unexpired messages or memories, latest activity first, with counts",
    params: req.OwnerParams,
    querystring: req.SessionsQuery,
    response: res.SessionsOut,
    args: ({ params, query }) => [params.ownerId, definedOnly(query)],
  }),
  useCaseRoute('sessionAppend')({
    route: 'POST /owners/:ownerId/sessions/:sessionId/messages',
    summary: 'Append messages to the session buffer (each passes the session gate)',
    params: req.SessionParams,
    body: req.SessionAppendBody,
    response: SessionAppendResultSchema,
    args: ({ params, body }) => [params.ownerId, params.sessionId, body],
  }),
  useCaseRoute('sessionContext')({
    route: 'GET /owners/:ownerId/sessions/:sessionId/context',
    summary: 'The session buffer and, for a query, long-term recall',
    params: req.SessionParams,
    querystring: req.SessionContextQuery,
    response: SessionContextSchema,
    args: ({ params, query: { query, ...opts } }) => [
      params.ownerId,
      params.sessionId,
      query,
      definedOnly(opts) as RecallOptions,
    ],
  }),
  useCaseRoute('readSession')({
    route: 'GET /owners/:ownerId/sessions/:sessionId/messages',
    summary: "The session's unexpired messages, oldest first (404 when it has none)",
    params: req.SessionParams,
    querystring: req.SessionMessagesQuery,
    response: SessionMessagesSchema,
    args: ({ params, query }) => [params.ownerId, params.sessionId, definedOnly(query)],
  }),
  useCaseRoute('forgetSession')({
    route: 'POST /owners/:ownerId/sessions/:sessionId/forget',
    tags: ['forget'],
    summary:
      'Forget a session whole: its messages, the memories observed in it and all derived from them; `dryRun` lists what would go',
    params: req.SessionParams,
    body: req.ForgetSessionBody,
    response: SessionForgettingSchema,
    args: ({ params, body }) => [params.ownerId, params.sessionId, body ?? {}],
  }),
  useCaseRoute('deleteSession')({
    route: 'DELETE /owners/:ownerId/sessions/:sessionId',
    summary: 'Delete a session from the buffer (its long-term memories stay; forget those by id)',
    params: req.SessionParams,
    response: SessionDeletionSchema,
    args: ({ params }) => [params.ownerId, params.sessionId],
  }),
  useCaseRoute('deleteSession')({
    route: 'DELETE /owners/:ownerId/sessions/:sessionId/messages/:seq',
    summary: 'Delete one message of a session, by the seq the context returns',
    params: req.SessionMessageParams,
    response: SessionDeletionSchema,
    args: ({ params }) => [params.ownerId, params.sessionId, params.seq],
  }),
]);
