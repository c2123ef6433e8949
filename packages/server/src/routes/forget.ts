// Deletion routes: forget ids, forget a whole owner, revoke a source, and
// verify that what was forgotten cannot be found anywhere.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ForgetBody,
  OwnerParams,
  RevokeSourceBody,
  VerifyForgottenBody,
} from '../schemas/requests.ts';
import { ForgottenOut, ReceiptOut, withErrors } from '../schemas/responses.ts';
import type { RouteOptions } from './context.ts';

export const forgetRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { engine, callerOf },
) => {
  app.post(
    '/owners/:ownerId/forget',
    {
      schema: {
        tags: ['forget'],
        summary: 'Forget memories and everything derived from them; answers with a receipt',
        params: OwnerParams,
        body: ForgetBody,
        response: withErrors({ 200: ReceiptOut }),
      },
    },
    async (request) => engine.forget(callerOf(request), request.params.ownerId, request.body.ids),
  );

  app.post(
    '/owners/:ownerId/verify-forgotten',
    {
      schema: {
        tags: ['forget'],
        summary: 'Prove that ids and content hashes are gone from every store, index and cache',
        params: OwnerParams,
        body: VerifyForgottenBody,
        response: withErrors({ 200: ForgottenOut }),
      },
    },
    async (request) =>
      engine.verifyForgotten(callerOf(request), request.params.ownerId, request.body),
  );

  app.delete(
    '/owners/:ownerId',
    {
      schema: {
        tags: ['forget'],
        summary: 'Forget everything an owner has (operator or user role)',
        params: OwnerParams,
        response: withErrors({ 200: ReceiptOut }),
      },
    },
    async (request) => engine.forgetOwner(callerOf(request), request.params.ownerId),
  );

  app.post(
    '/owners/:ownerId/revoke-source',
    {
      schema: {
        tags: ['forget'],
        summary: 'Forget every memory whose origin names this URL, document or tool',
        params: OwnerParams,
        body: RevokeSourceBody,
        response: withErrors({ 200: ReceiptOut }),
      },
    },
    async (request) => engine.revokeSource(callerOf(request), request.params.ownerId, request.body),
  );
};
