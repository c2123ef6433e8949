// Routes about the caller: who its credential says it is, and the owners
// it may look at (a UI's first two calls). Neither names an owner; the
// engine answers each from the caller's own scope.
import { OwnerPageSchema, WhoAmISchema } from '@keepgraph/core';
import * as req from '../schemas/requests.ts';
import { definedOnly, routeFamily, useCaseRoute } from './use-case-route.ts';

export const identityRoutes = routeFamily('identity', [
  useCaseRoute('whoami')({
    route: 'GET /whoami',
    summary: "The caller's credential: principal, role, owners (`*` for all) and expiry",
    response: WhoAmISchema,
    args: () => [],
  }),
  useCaseRoute('listOwners')({
    route: 'GET /owners',
    summary:
      'The owners holding memories, with how many each (operators and analysts; a key scoped to some owners sees those of its own)',
    description: 'Pages follow owner id order; pass `next` as `after`.',
    querystring: req.OwnersQuery,
    response: OwnerPageSchema,
    args: ({ query }) => [definedOnly(query)],
  }),
]);
