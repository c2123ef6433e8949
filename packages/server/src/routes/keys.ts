// API key routes, for operators: create (the key is in this answer only),
// list, revoke. The engine refuses them to any other role.
import { z } from 'zod';
import { ApiKeyInfoSchema, CreatedApiKeySchema } from '@keepgraph/core';
import * as req from '../schemas/requests.ts';
import { routeFamily, useCaseRoute } from './use-case-route.ts';

export const keyRoutes = routeFamily('keys', [
  useCaseRoute('createKey')({
    route: 'POST /keys',
    summary: 'Create an API key (operator); the key is shown in this answer only',
    body: req.CreateKeyBody,
    status: 201,
    response: CreatedApiKeySchema,
    // The answer holds the key: recording it for a replay would store it.
    idempotency: 'refused',
    args: ({ body }) => [body],
  }),
  useCaseRoute('listKeys')({
    route: 'GET /keys',
    summary: 'Every API key, revoked ones too: never a key or its hash (operator)',
    response: z.object({ keys: z.array(ApiKeyInfoSchema) }),
    args: () => [],
    reply: (keys) => ({ keys }),
  }),
  useCaseRoute('revokeKey')({
    route: 'DELETE /keys/:id',
    summary: 'Revoke an API key: refused from its next request on, by every API process (operator)',
    params: req.KeyIdParams,
    response: ApiKeyInfoSchema,
    args: ({ params }) => [params.id],
  }),
]);
