// Every use-case, defined once: what it runs and which caller roles may run
// it. The engine is derived from this table (engine.ts lists nothing by
// hand) and checks the declared roles before a use-case runs, so no body
// repeats a role check; the HTTP routes, the CLI and later the MCP tools
// call through the engine. Adding a use-case is one entry here.
import { ROLES, type Role } from '../record.ts';
import type { Caller, EngineDeps } from './deps.ts';
import { expireDue, forget, forgetOwner, revokeSource, verifyForgotten } from './forget.ts';
import { exportPage } from './export.ts';
import { auditList, auditVerify, kpis } from './operate.ts';
import { getByKey, getMemory, lineage, recall, why } from './recall.ts';
import { putByKey, remember, rememberMany } from './remember.ts';
import { deleteSession, sessionAppend, sessionContext } from './session.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each use-case has its own arguments
type UseCaseFn = (deps: EngineDeps, caller: Caller, ...args: any[]) => Promise<unknown>;

export interface UseCase<F extends UseCaseFn = UseCaseFn> {
  /** What the caller is doing, as a refusal says it: "forgetting a whole owner". */
  action: string;
  /** The caller roles that may run it; any other gets `forbidden_role` before it runs. */
  roles: readonly Role[];
  run: F;
}

export function defineUseCase<F extends UseCaseFn>(u: UseCase<F>): UseCase<F> {
  return u;
}

const EVERYONE = ROLES;
const PEOPLE = ['operator', 'user'] as const satisfies readonly Role[];
const OPERATORS = ['operator'] as const satisfies readonly Role[];

export const USE_CASES = {
  remember: defineUseCase({ action: 'writing a memory', roles: EVERYONE, run: remember }),
  rememberMany: defineUseCase({ action: 'writing memories', roles: EVERYONE, run: rememberMany }),
  putByKey: defineUseCase({ action: 'putting a value by key', roles: EVERYONE, run: putByKey }),
  recall: defineUseCase({ action: 'recalling', roles: EVERYONE, run: recall }),
  why: defineUseCase({ action: 'explaining a recall', roles: EVERYONE, run: why }),
  get: defineUseCase({ action: 'reading a memory', roles: EVERYONE, run: getMemory }),
  lineage: defineUseCase({ action: 'reading a lineage', roles: EVERYONE, run: lineage }),
  getByKey: defineUseCase({ action: 'reading by key', roles: EVERYONE, run: getByKey }),
  exportPage: defineUseCase({
    action: "exporting an owner's memories",
    roles: PEOPLE,
    run: exportPage,
  }),
  // A tool writes what it observed; deleting memories is for people and agents.
  forget: defineUseCase({
    action: 'forgetting memories',
    roles: ['operator', 'user', 'agent'],
    run: forget,
  }),
  forgetOwner: defineUseCase({
    action: 'forgetting a whole owner',
    roles: PEOPLE,
    run: forgetOwner,
  }),
  revokeSource: defineUseCase({ action: 'revoking a source', roles: PEOPLE, run: revokeSource }),
  verifyForgotten: defineUseCase({
    action: 'verifying a deletion',
    roles: EVERYONE,
    run: verifyForgotten,
  }),
  expireDue: defineUseCase({ action: 'running expiry', roles: OPERATORS, run: expireDue }),
  sessionAppend: defineUseCase({
    action: 'appending to a session',
    roles: EVERYONE,
    run: sessionAppend,
  }),
  sessionContext: defineUseCase({
    action: 'reading a session context',
    roles: EVERYONE,
    run: sessionContext,
  }),
  deleteSession: defineUseCase({
    action: 'deleting session messages',
    roles: ['operator', 'user', 'agent'],
    run: deleteSession,
  }),
  auditList: defineUseCase({ action: 'reading the audit log', roles: OPERATORS, run: auditList }),
  auditVerify: defineUseCase({
    action: 'verifying the audit log',
    roles: OPERATORS,
    run: auditVerify,
  }),
  kpis: defineUseCase({ action: 'reading KPIs', roles: OPERATORS, run: kpis }),
} as const;

export type UseCaseName = keyof typeof USE_CASES;
