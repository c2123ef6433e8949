// Every use-case, one row each: the engine method's name, what the caller is
// doing (as a refusal says it), the roles that may do it, its arguments and
// its body (both in the use-case's module, or the arguments beside it: see
// below). The engine is derived from this table (engine.ts lists nothing by
// hand) and checks the caller, the roles and the arguments before a body runs. A row with an
// exposure (exposure.ts) is bound on HTTP, MCP, the CLI and both SDKs from
// the row alone; the older rows' routes, tools and commands are written in
// each interface, name the use-case they run, and tests check that they do.
//
// Reading the table loads no policy gate and no ranking (chrono-node, stop
// words, secretlint...): the CLI builds its commands from it at every start,
// `--help` included (@keepgraph/core/registry). A module whose bodies need
// either keeps its arguments in a module of their own (remember-args.ts
// beside remember.ts), and its rows reference the bodies through
// lazyBodies (define.ts), loaded on their first call.
import { CorrectArgs } from './correct-args.ts';
import { ExportPageArgs, exportPage } from './export.ts';
import { ImportArgs } from './import-args.ts';
import { ListMemoriesArgs, ListSessionsArgs, listMemories, listSessions } from './list.ts';
import {
  ExpireArgs,
  ForgetArgs,
  OwnerArgs,
  RevokeSourceArgs,
  VerifyArgs,
  expireDue,
  forget,
  forgetOwner,
  revokeSource,
  verifyForgotten,
} from './forget.ts';
import { AuditListArgs, KpisArgs, auditList, auditVerify, kpis } from './operate.ts';
import { RecallArgs } from './recall-args.ts';
import { KeyArgs, MemoryIdArgs, getByKey, getMemory, lineage } from './inspect.ts';
import { PutByKeyArgs, RememberArgs, RememberManyArgs } from './remember-args.ts';
import { DeleteSessionArgs, SessionAppendArgs, SessionContextArgs } from './session-args.ts';
import { ForgetSessionArgs, ReadSessionArgs } from './session-forget-args.ts';
import { CreateKeyArgs, RevokeKeyArgs } from './keys-args.ts';
import { ReadLogArgs, readLog } from './read-log.ts';
import { EntityGraphArgs, entityGraph, neighbours } from './graph.ts';
import { ListOwnersArgs, listOwners, whoami } from './caller.ts';
import { exposed } from './exposure.ts';
import { OwnerStatsArgs, OwnerStatsResult, ownerStats } from './owner-stats.ts';
import {
  DELETERS,
  EVERYONE,
  OPERATORS,
  OVERSEERS,
  PEOPLE,
  WRITERS,
  callerScoped,
  lazyBodies,
  defineUseCase as uc,
} from './define.ts';

export { defineUseCase, type UseCase } from './define.ts';

// The bodies that load the policy gate (writes, sessions, keys) or the ranking (recall).
const { remember, rememberMany, putByKey } = lazyBodies(
  () => import('./remember.ts'),
  ['remember', 'rememberMany', 'putByKey'],
);
const { importMemories } = lazyBodies(() => import('./import.ts'), ['importMemories']);
const { correctMemory } = lazyBodies(() => import('./correct.ts'), ['correctMemory']);
const { recall, why } = lazyBodies(() => import('./recall.ts'), ['recall', 'why']);
const { sessionAppend, sessionContext, deleteSession } = lazyBodies(
  () => import('./session.ts'),
  ['sessionAppend', 'sessionContext', 'deleteSession'],
);
const { readSession, forgetSession } = lazyBodies(
  () => import('./session-forget.ts'),
  ['readSession', 'forgetSession'],
);
const { createKey, listKeys, revokeKey } = lazyBodies(
  () => import('./keys.ts'),
  ['createKey', 'listKeys', 'revokeKey'],
);

// prettier-ignore
export const USE_CASES = {
  remember: uc('writing a memory', WRITERS, RememberArgs, remember),
  rememberMany: uc('writing memories', WRITERS, RememberManyArgs, rememberMany),
  importMemories: uc('importing memories', WRITERS, ImportArgs, importMemories),
  putByKey: uc('putting a value by key', WRITERS, PutByKeyArgs, putByKey),
  correct: uc('correcting a memory', WRITERS, CorrectArgs, correctMemory),
  recall: uc('recalling', EVERYONE, RecallArgs, recall),
  why: uc('explaining a recall', EVERYONE, RecallArgs, why),
  get: uc('reading a memory', EVERYONE, MemoryIdArgs, getMemory),
  lineage: uc('reading a lineage', EVERYONE, MemoryIdArgs, lineage),
  neighbours: uc("reading a memory's neighbours", EVERYONE, MemoryIdArgs, neighbours),
  entityGraph: uc("reading an owner's entity graph", EVERYONE, EntityGraphArgs, entityGraph),
  getByKey: uc('reading by key', EVERYONE, KeyArgs, getByKey),
  readLog: uc('reading the read log', EVERYONE, ReadLogArgs, readLog),
  listMemories: uc("listing an owner's memories", EVERYONE, ListMemoriesArgs, listMemories),
  exportPage: uc("exporting an owner's memories", PEOPLE, ExportPageArgs, exportPage),
  forget: uc('forgetting memories', DELETERS, ForgetArgs, forget),
  forgetOwner: uc('forgetting a whole owner', PEOPLE, OwnerArgs, forgetOwner),
  revokeSource: uc('revoking a source', PEOPLE, RevokeSourceArgs, revokeSource),
  verifyForgotten: uc('verifying a deletion', EVERYONE, VerifyArgs, verifyForgotten),
  expireDue: uc('running expiry', OPERATORS, ExpireArgs, expireDue),
  sessionAppend: uc('appending to a session', WRITERS, SessionAppendArgs, sessionAppend),
  listSessions: uc("listing an owner's sessions", EVERYONE, ListSessionsArgs, listSessions),
  sessionContext: uc('reading a session context', EVERYONE, SessionContextArgs, sessionContext),
  readSession: uc("reading a session's messages", EVERYONE, ReadSessionArgs, readSession),
  deleteSession: uc('deleting session messages', DELETERS, DeleteSessionArgs, deleteSession),
  forgetSession: uc('forgetting a session and its memories', DELETERS, ForgetSessionArgs, forgetSession),
  auditList: uc('reading the audit log', OVERSEERS, AuditListArgs, auditList, (i) => i.filter.ownerId),
  auditVerify: uc('verifying the audit log', OPERATORS, [], auditVerify),
  kpis: uc('reading KPIs', OVERSEERS, KpisArgs, kpis, (i) => i.options.ownerId),
  createKey: uc('creating an API key', OPERATORS, CreateKeyArgs, createKey),
  listKeys: uc('listing API keys', OPERATORS, [], listKeys),
  revokeKey: uc('revoking an API key', OPERATORS, RevokeKeyArgs, revokeKey),
  // Scoped by the caller: who it is, and the owners it holds.
  whoami: callerScoped(uc('reading who the caller is', EVERYONE, [], whoami)),
  listOwners: callerScoped(uc('listing owners', OVERSEERS, ListOwnersArgs, listOwners)),
  // Exposed: every interface derives its binding from the row (exposure.ts).
  ownerStats: exposed(uc("reading an owner's statistics", EVERYONE, OwnerStatsArgs, ownerStats), {
    summary: 'How much is held for an owner, by kind and authority, and how old it is',
    result: OwnerStatsResult,
    http: 'GET /owners/:ownerId/stats',
    tag: 'memories',
    mcp: { name: 'owner_stats', kind: 'read' },
    cli: { command: 'stats' },
  }),
} as const;

export type UseCaseName = keyof typeof USE_CASES;
