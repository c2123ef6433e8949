// Every route the client calls, by the use-case it runs, spelled exactly as
// the server declares it (a test holds the two together), and the result
// type of each: the engine method's own.
import type { Engine, UseCaseName } from '@keepgraph/core';
import { EXPOSED_ROUTES } from './exposed.generated.ts';

/** What the engine method of a use-case answers: the route's body. */
export type Out<N extends UseCaseName> = Awaited<ReturnType<Engine[N]>>;

/** Every route the client calls, by use-case: `METHOD /path` as the server declares it. */
export const ROUTES = {
  remember: 'POST /owners/:ownerId/memories',
  rememberMany: 'POST /owners/:ownerId/memories::batch',
  importMemories: 'POST /owners/:ownerId/import',
  get: 'GET /owners/:ownerId/memories/:id',
  correct: 'PATCH /owners/:ownerId/memories/:id',
  lineage: 'GET /owners/:ownerId/memories/:id/lineage',
  neighbours: 'GET /owners/:ownerId/memories/:id/neighbours',
  entityGraph: 'GET /owners/:ownerId/entities/graph',
  forgetOne: 'DELETE /owners/:ownerId/memories/:id',
  listMemories: 'GET /owners/:ownerId/memories',
  exportJsonl: 'GET /owners/:ownerId/export.jsonl',
  exportPage: 'GET /owners/:ownerId/export',
  recall: 'POST /owners/:ownerId/recall',
  why: 'POST /owners/:ownerId/why',
  forget: 'POST /owners/:ownerId/forget',
  verifyForgotten: 'POST /owners/:ownerId/verify-forgotten',
  forgetOwner: 'DELETE /owners/:ownerId',
  revokeSource: 'POST /owners/:ownerId/revoke-source',
  getByKey: 'GET /owners/:ownerId/kv/:key',
  putByKey: 'PUT /owners/:ownerId/kv/:key',
  listSessions: 'GET /owners/:ownerId/sessions',
  sessionAppend: 'POST /owners/:ownerId/sessions/:sessionId/messages',
  sessionContext: 'GET /owners/:ownerId/sessions/:sessionId/context',
  readSession: 'GET /owners/:ownerId/sessions/:sessionId/messages',
  readLog: 'GET /owners/:ownerId/reads',
  forgetSession: 'POST /owners/:ownerId/sessions/:sessionId/forget',
  deleteSession: 'DELETE /owners/:ownerId/sessions/:sessionId',
  deleteSessionMessage: 'DELETE /owners/:ownerId/sessions/:sessionId/messages/:seq',
  auditList: 'GET /audit',
  auditVerify: 'GET /audit/verify',
  kpis: 'GET /kpis',
  expireDue: 'POST /expire',
  createKey: 'POST /keys',
  listKeys: 'GET /keys',
  revokeKey: 'DELETE /keys/:id',
  whoami: 'GET /whoami',
  listOwners: 'GET /owners',
  // The exposed use-cases' routes, generated from core's registry.
  ...EXPOSED_ROUTES,
} as const;
export type RouteName = keyof typeof ROUTES;
