// The engine: every use-case of the registry bound to one set of
// dependencies, its declared roles checked before it runs. Server, CLI and
// workers hold an Engine; the use-case modules stay plain functions.
import { randomUUID } from 'node:crypto';
import { keyedHasher, newAuditSecret } from './domain/audit.ts';
import { isKeepGraphError } from './domain/errors.ts';
import {
  answerOnce,
  type Answer,
  type AnswerOnceOptions,
  type IdempotentRequest,
} from './idempotency.ts';
import type { Policy } from './policy/policy-schema.ts';
import { authenticateApiKey } from './services/api-keys.ts';
import { safeObserver } from './domain/observe.ts';
import {
  checkCaller,
  requireRole,
  type Caller,
  type Credential,
  type EngineDeps,
} from './services/deps.ts';
import {
  checkSpanScope,
  parseUseCaseInput,
  type DryRunMethod,
  type PositionalArgs,
  type Preview,
  type UseCase,
} from './use-cases/define.ts';
import type { RecallOptions } from './use-cases/recall-args.ts';
import { USE_CASES, type UseCaseName } from './use-cases/registry.ts';

/**
 * A use-case as an engine method: the caller, then its arguments in order.
 * One whose answer may be a dry run's preview has overloads (DryRunMethod).
 */
export type EngineMethod<U> =
  U extends UseCase<infer A, infer R>
    ? [Preview<R>] extends [never]
      ? (caller: Caller, ...args: PositionalArgs<A>) => Promise<R>
      : DryRunMethod<A, R>
    : never;

/**
 * What an interface (HTTP, MCP) needs of the engine beside its use-cases:
 * narrow capabilities, so that no interface reaches the store or the other
 * dependencies behind them.
 */
export interface EngineServices {
  /** The credential an API key (`kgk_…`) stands for now, or null. */
  authenticate(apiKey: string): Promise<Credential | null>;
  /** Run a write once per Idempotency-Key and replay its answer (idempotency.ts). */
  answerOnce(
    req: IdempotentRequest,
    run: () => Promise<Answer>,
    opts?: AnswerOnceOptions,
  ): Promise<Answer & { replayed: boolean }>;
  /** What serves: the store's kind, its schema version (highest migration applied) and the embedding model's id. */
  readonly serving: { store: string; schemaVersion: number; model: string };
  /** The policy's limits an interface enforces itself (answer bytes, MCP batches). */
  readonly limits: Readonly<Policy['limits']>;
}

/** One method per use-case of the registry, its services, and (for tests and tools) its dependencies. */
export type Engine = { readonly deps: EngineDeps; readonly services: EngineServices } & {
  readonly [K in UseCaseName]: EngineMethod<(typeof USE_CASES)[K]>;
};

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

/** The code an observation gives an error: ours, or `internal` for anything else. */
function errorCode(e: unknown): string {
  return isKeepGraphError(e) ? e.code : 'internal';
}

/**
 * Every check the engine makes before a use-case's body runs, and nothing
 * else: the caller's shape, its role, the owners the use-case spans, and
 * the arguments parsed with the caller (an owner outside its scope
 * refused). Throws what the engine method would; returns the parsed input.
 * Anything that answers for the engine without running it (an
 * Idempotency-Key's kept answer) runs this first, so it answers only a
 * caller the engine would let run the request now.
 */
export function checkUseCaseCall(
  name: UseCaseName,
  caller: Caller,
  args: readonly unknown[],
): Record<string, unknown> {
  const uc = USE_CASES[name] as unknown as UseCase;
  checkCaller(caller);
  requireRole(caller, uc.roles, uc.action);
  checkSpanScope(uc, undefined, caller);
  const input = parseUseCaseInput(uc, args, caller);
  checkSpanScope(uc, input, caller);
  return input;
}

export function createEngine(opts: EngineOptions): Engine {
  const { auditSecret, ...deps } = opts;
  const observe = safeObserver(deps.observe);
  const d: EngineDeps = {
    ...deps,
    newId: deps.newId ?? randomUUID,
    keyedHash: keyedHasher(auditSecret ?? newAuditSecret()),
    observe,
  };
  const methods = Object.fromEntries(
    (Object.entries(USE_CASES) as unknown as [UseCaseName, UseCase][]).map(([name, uc]) => [
      name,
      async (caller: Caller, ...args: unknown[]) => {
        // Timed from the first check: a refused caller is a use-case run too.
        const started = performance.now();
        try {
          const input = checkUseCaseCall(name, caller, args);
          const result = await uc.run(d, input, caller);
          observe({
            type: 'use_case',
            useCase: name,
            durationMs: performance.now() - started,
            outcome: 'ok',
            result,
          });
          return result;
        } catch (e) {
          observe({
            type: 'use_case',
            useCase: name,
            durationMs: performance.now() - started,
            outcome: 'error',
            code: errorCode(e),
          });
          throw e;
        }
      },
    ]),
  );
  const services: EngineServices = {
    authenticate: (apiKey) => authenticateApiKey(d.store, apiKey, d.clock.now()),
    answerOnce: (req, run, o) => answerOnce(d, req, run, o),
    // Read when asked: creating an engine touches none of its dependencies.
    get serving() {
      return {
        store: d.store.kind,
        schemaVersion: d.store.schemaVersion,
        model: d.embedder.modelId,
      };
    },
    get limits() {
      return d.policy.limits;
    },
  };
  return { deps: d, services, ...methods } as Engine;
}
