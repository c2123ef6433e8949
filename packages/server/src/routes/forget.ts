// Deletion routes: forget ids, forget a whole owner, revoke a source (the
// first and the last with a dry run), and verify that what was forgotten
// cannot be found anywhere.
import { ForgottenCheckSchema } from '@keepgraph/core';
import { DeletionReceiptSchema } from '@keepgraph/core/ports';
import * as req from '../schemas/requests.ts';
import * as res from '../schemas/responses.ts';
import { routeFamily, useCaseRoute } from './use-case-route.ts';

type Body = Record<string, unknown>;
/** The engine's options: what a body holds beside its other fields (the engine's schema is strict). */
type DryRunOptions = { dryRun?: boolean };

export const forgetRoutes = routeFamily('forget', [
  useCaseRoute('forget')({
    route: 'POST /owners/:ownerId/forget',
    summary:
      'Forget memories and everything derived from them; answers with a receipt (with `dryRun: true`, what would go, deleting nothing)',
    params: req.OwnerParams,
    body: req.ForgetBody,
    response: res.ReceiptOrPreviewOut,
    // Everything but the ids is options, which the engine checks strictly.
    args: ({ params, body }) => {
      const { ids, ...options } = body as Body;
      return [params.ownerId, ids as string[], options as DryRunOptions];
    },
  }),
  useCaseRoute('verifyForgotten')({
    route: 'POST /owners/:ownerId/verify-forgotten',
    summary: 'Prove that ids and content hashes are gone from every store, index and cache',
    params: req.OwnerParams,
    body: req.VerifyForgottenBody,
    response: ForgottenCheckSchema,
    // A read: asking again is already safe.
    idempotency: 'ignored',
    args: ({ params, body }) => [params.ownerId, body],
  }),
  useCaseRoute('forgetOwner')({
    route: 'DELETE /owners/:ownerId',
    summary: 'Forget everything an owner has (operator or user role)',
    params: req.OwnerParams,
    response: DeletionReceiptSchema,
    args: ({ params }) => [params.ownerId],
  }),
  useCaseRoute('revokeSource')({
    route: 'POST /owners/:ownerId/revoke-source',
    summary:
      'Forget every memory whose origin names this URL, document or tool (with `dryRun: true`, list them and what grew out of them, deleting nothing)',
    params: req.OwnerParams,
    body: req.RevokeSourceBody,
    response: res.ReceiptOrPreviewOut,
    // Everything but dryRun names the source, which the engine checks strictly.
    args: ({ params, body }) => {
      const { dryRun, ...source } = body as Body;
      return [params.ownerId, source, (dryRun === undefined ? {} : { dryRun }) as DryRunOptions];
    },
  }),
]);
