// Key-value routes: the current value under (owner, key), with any
// lower-authority conflicting claims kept beside it.
import { KeepGraphError, RememberResultSchema } from '@keepgraph/core';
import * as req from '../schemas/requests.ts';
import * as res from '../schemas/responses.ts';
import { routeFamily, useCaseRoute } from './use-case-route.ts';

export const kvRoutes = routeFamily('kv', [
  useCaseRoute('getByKey')({
    route: 'GET /owners/:ownerId/kv/:key',
    summary: "The owner's current value under a key (never another owner's)",
    params: req.KeyParams,
    response: res.KvOut,
    args: ({ params }) => [params.ownerId, params.key],
    reply: (r, { params }) => {
      if (r.current === null && r.conflicts.length === 0)
        throw new KeepGraphError('not_found', `no value under key ${params.key} for this owner`);
      return r;
    },
  }),
  // The engine parses the whole input (the key from the URL wins over any in the body).
  useCaseRoute('putByKey')({
    route: 'PUT /owners/:ownerId/kv/:key',
    summary: 'Put a value under a key; supersedes the current one unless that has higher authority',
    params: req.KeyParams,
    body: req.KvPutBody,
    response: RememberResultSchema,
    args: ({ params, body }) => [params.ownerId, params.key, body],
  }),
]);
