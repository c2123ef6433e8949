// Graph routes for an explorer: a memory's neighbours (to expand a graph by
// a click) and an owner's entity graph, both in graphology's format with the
// node keys lineage uses, so the graphs merge in a UI.
import * as req from '../schemas/requests.ts';
import * as res from '../schemas/responses.ts';
import { definedOnly, routeFamily, useCaseRoute } from './use-case-route.ts';

export const graphRoutes = routeFamily('graph', [
  useCaseRoute('neighbours')({
    route: 'GET /owners/:ownerId/memories/:id/neighbours',
    summary:
      'A memory and what touches it: its sources, what was derived from it, its versions, the entity relations it asserts (graphology format)',
    description:
      'Memory nodes are keyed by id (as in the lineage), entity nodes `entity:<normalised name>`. Edges: `DERIVED_FROM` derived memory to source, `SUPERSEDES` newer version to older, `ASSERTS` the memory to each entity it relates, and relation edges subject to object with `type`, `reasons` and `assertedBy`.',
    params: req.MemoryParams,
    response: res.NeighboursOut,
    args: ({ params }) => [params.ownerId, params.id],
  }),
  useCaseRoute('entityGraph')({
    route: 'GET /owners/:ownerId/entities/graph',
    summary:
      "The owner's entities and the relations between them that live memories assert (graphology format)",
    description:
      'Relation edges subject to object with `type` (e.g. PREFERS_AGAINST), `reasons` and `assertedBy` (live memories only: an expired or superseded assertion does not count). At most `limit` edges, the best attested first; `attributes.truncated` says whether some were left out.',
    params: req.OwnerParams,
    querystring: req.EntityGraphQuery,
    response: res.EntityGraphOut,
    args: ({ params, query }) => [params.ownerId, definedOnly(query)],
  }),
]);
