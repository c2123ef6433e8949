// Deletion routes: forget ids, forget a whole owner, revoke a source, and
// verify that what was forgotten cannot be found anywhere.
import * as req from '../schemas/requests.ts';
import * as res from '../schemas/responses.ts';
import { routeFamily, useCaseRoute } from './use-case-route.ts';

export const forgetRoutes = routeFamily('forget', [
  useCaseRoute('forget')({
    route: 'POST /owners/:ownerId/forget',
    summary: 'Forget memories and everything derived from them; answers with a receipt',
    params: req.OwnerParams,
    body: req.ForgetBody,
    response: res.ReceiptOut,
    args: ({ params, body }) => [params.ownerId, body.ids],
  }),
  useCaseRoute('verifyForgotten')({
    route: 'POST /owners/:ownerId/verify-forgotten',
    summary: 'Prove that ids and content hashes are gone from every store, index and cache',
    params: req.OwnerParams,
    body: req.VerifyForgottenBody,
    response: res.ForgottenOut,
    // A read: asking again is already safe.
    idempotency: 'ignored',
    args: ({ params, body }) => [params.ownerId, body],
  }),
  useCaseRoute('forgetOwner')({
    route: 'DELETE /owners/:ownerId',
    summary: 'Forget everything an owner has (operator or user role)',
    params: req.OwnerParams,
    response: res.ReceiptOut,
    args: ({ params }) => [params.ownerId],
  }),
  useCaseRoute('revokeSource')({
    route: 'POST /owners/:ownerId/revoke-source',
    summary: 'Forget every memory whose origin names this URL, document or tool',
    params: req.OwnerParams,
    body: req.RevokeSourceBody,
    response: res.ReceiptOut,
    args: ({ params, body }) => [params.ownerId, body],
  }),
]);
