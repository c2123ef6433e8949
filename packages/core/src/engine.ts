// The engine: every use-case bound to one set of dependencies. Server, CLI
// and workers hold an Engine; the use-case modules stay plain functions.
import { randomUUID } from 'node:crypto';
import { keyedHasher, newAuditSecret } from './audit.ts';
import type { Caller, EngineDeps } from './use-cases/deps.ts';
import { remember, rememberMany } from './use-cases/remember.ts';
import {
  getByKey,
  getMemory,
  lineage,
  recall,
  why,
  type RecallOptions,
} from './use-cases/recall.ts';
import {
  expireDue,
  forget,
  forgetOwner,
  revokeSource,
  verifyForgotten,
} from './use-cases/forget.ts';
import { deleteSession, sessionAppend, sessionContext } from './use-cases/session.ts';
import { auditList, auditVerify, kpis } from './use-cases/operate.ts';
import type { MemoryInput } from './record.ts';

type Bound<F> = F extends (deps: EngineDeps, ...rest: infer A) => infer R
  ? (...args: A) => R
  : never;

export interface Engine {
  readonly deps: EngineDeps;
  remember: Bound<typeof remember>;
  rememberMany: Bound<typeof rememberMany>;
  recall: Bound<typeof recall>;
  why: Bound<typeof why>;
  get: Bound<typeof getMemory>;
  lineage: Bound<typeof lineage>;
  getByKey: Bound<typeof getByKey>;
  /** Put a value under (owner, key): a `kv` memory unless another kind is given. */
  putByKey(
    caller: Caller,
    ownerId: unknown,
    key: string,
    input: Omit<MemoryInput, 'key' | 'kind'> & { kind?: MemoryInput['kind'] },
  ): ReturnType<typeof remember>;
  forget: Bound<typeof forget>;
  forgetOwner: Bound<typeof forgetOwner>;
  revokeSource: Bound<typeof revokeSource>;
  verifyForgotten: Bound<typeof verifyForgotten>;
  expireDue: Bound<typeof expireDue>;
  sessionAppend: Bound<typeof sessionAppend>;
  sessionContext: Bound<typeof sessionContext>;
  deleteSession: Bound<typeof deleteSession>;
  auditList: Bound<typeof auditList>;
  auditVerify: Bound<typeof auditVerify>;
  kpis: Bound<typeof kpis>;
}

export type { RecallOptions };

/** What {@link createEngine} needs: the ports, and optionally ids and the audit secret. */
export type EngineOptions = Omit<EngineDeps, 'newId' | 'keyedHash'> & {
  newId?: () => string;
  /**
   * The installation's audit secret (see `keyedHasher`). The runtime keeps
   * one per data dir; without it the engine draws one, so its audit hashes
   * match nothing written by another process or after a restart.
   */
  auditSecret?: string;
};

export function createEngine(opts: EngineOptions): Engine {
  const { auditSecret, ...deps } = opts;
  const d: EngineDeps = {
    ...deps,
    newId: deps.newId ?? randomUUID,
    keyedHash: keyedHasher(auditSecret ?? newAuditSecret()),
  };
  return {
    deps: d,
    remember: (...a) => remember(d, ...a),
    rememberMany: (...a) => rememberMany(d, ...a),
    recall: (...a) => recall(d, ...a),
    why: (...a) => why(d, ...a),
    get: (...a) => getMemory(d, ...a),
    lineage: (...a) => lineage(d, ...a),
    getByKey: (...a) => getByKey(d, ...a),
    putByKey: (caller, ownerId, key, input) =>
      remember(d, caller, ownerId, { kind: 'kv', ...input, key }),
    forget: (...a) => forget(d, ...a),
    forgetOwner: (...a) => forgetOwner(d, ...a),
    revokeSource: (...a) => revokeSource(d, ...a),
    verifyForgotten: (...a) => verifyForgotten(d, ...a),
    expireDue: (...a) => expireDue(d, ...a),
    sessionAppend: (...a) => sessionAppend(d, ...a),
    sessionContext: (...a) => sessionContext(d, ...a),
    deleteSession: (...a) => deleteSession(d, ...a),
    auditList: (...a) => auditList(d, ...a),
    auditVerify: (...a) => auditVerify(d, ...a),
    kpis: (...a) => kpis(d, ...a),
  };
}
