// Global options and the embedded runtime every local command runs on. The
// CLI opens the same runtime as `keepgraph start`, in process, without the
// background jobs (one command, one short life: the jobs its writes trigger
// wait in the store's outbox for the next `start` or worker), and always
// closes it.
import path from 'node:path';
import type { Command } from 'commander';
import type { EmbeddedRuntime, StoreKind } from '@keepgraph/runtime';
import type { Caller, Engine } from '@keepgraph/core';
import { KeepGraphError, type Role, type UseCaseName } from '@keepgraph/core/registry';
import type { ModelId } from '@keepgraph/embedder';

/** Options accepted before or after any command. */
export interface GlobalOptions {
  /** Absolute path of the local data directory. */
  dataDir: string;
  /** Absolute path of a policy file, or undefined for the default policy. */
  policyPath: string | undefined;
  /** Embedding model id, or undefined for the embedder's default. */
  modelId: ModelId | undefined;
  role: Role;
  principal: string;
  /** The use-cases the command declared (runsUseCases): its engine offers those only. */
  useCases: readonly UseCaseName[];
}

const DECLARED = new WeakMap<Command, readonly UseCaseName[]>();

/**
 * Declare the registry use-cases a command runs. Its engine then offers
 * those and no others (an undeclared one throws), so the declaration a test
 * reads is the command's real reach.
 */
export function runsUseCases(cmd: Command, names: readonly UseCaseName[]): Command {
  DECLARED.set(cmd, names);
  return cmd;
}

/** What a command declared with runsUseCases, or undefined for one that runs none. */
export function declaredUseCases(cmd: Command): readonly UseCaseName[] | undefined {
  return DECLARED.get(cmd);
}

/** The engine with only `names` callable; `deps` and `services` stay readable (benchmarks read retrievers). */
export function engineLimitedTo(engine: Engine, names: readonly UseCaseName[]): Engine {
  return new Proxy(engine, {
    get(target, prop, receiver) {
      if (prop === 'deps' || prop === 'services' || typeof prop !== 'string' || !(prop in target))
        return Reflect.get(target, prop, receiver) as unknown;
      if (!names.includes(prop as UseCaseName))
        throw new KeepGraphError(
          'internal',
          `this command declared ${names.join(', ') || 'no use-cases'}, not ${prop} (runsUseCases)`,
        );
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

/** Default data directory when neither --data nor KEEPGRAPH_DATA_DIR is set. */
export const DEFAULT_DATA_DIR = './.data';

/**
 * The directory relative paths are read against. `pnpm keepgraph` runs the
 * script from the repository root; pnpm keeps the user's own directory in
 * INIT_CWD, so paths typed in a subdirectory mean what the user meant. Only
 * trusted when this process is that script, since INIT_CWD leaks into
 * anything a pnpm script spawns.
 */
export function userCwd(env: NodeJS.ProcessEnv = process.env): string {
  if (env.npm_lifecycle_event === 'keepgraph' && env.INIT_CWD) return env.INIT_CWD;
  return process.cwd();
}

/** Resolve a path the user typed. */
export function userPath(p: string): string {
  return path.resolve(userCwd(), p);
}

/**
 * Read the global options of the command being run. `operatorByDefault`
 * is for audit, kpis and expire: whoever holds the data directory is its
 * operator, so those run as `operator` unless --role was given explicitly.
 */
export function globalOptions(
  cmd: Command,
  opts: { operatorByDefault?: boolean } = {},
): GlobalOptions {
  const g = cmd.optsWithGlobals<{
    data: string;
    policy?: string;
    model?: ModelId;
    role: Role;
    principal: string;
  }>();
  const roleGiven = cmd.getOptionValueSourceWithGlobals('role') === 'cli';
  return {
    dataDir: userPath(g.data),
    policyPath: g.policy ? userPath(g.policy) : undefined,
    modelId: g.model,
    role: opts.operatorByDefault && !roleGiven ? 'operator' : g.role,
    principal: g.principal,
    useCases: DECLARED.get(cmd) ?? [],
  };
}

/**
 * The caller every engine call of this command uses. Whoever holds the data
 * directory holds every owner in it: the local CLI needs no key.
 */
export function callerOf(g: GlobalOptions): Caller {
  return { role: g.role, owners: 'all', principal: g.principal };
}

/** What a command body receives. */
export interface LocalRuntime {
  engine: Engine;
  caller: Caller;
  globals: GlobalOptions;
  /** The runtime itself, for the commands that work below the engine (backup). */
  runtime: EmbeddedRuntime;
}

/** Open the embedded runtime, run `fn`, and close the runtime whatever happens. */
export async function withRuntime<T>(
  g: GlobalOptions,
  fn: (rt: LocalRuntime) => Promise<T>,
  opts: {
    store?: StoreKind;
    /** A long-running command (the MCP server): run the background jobs, as `start` does. */
    background?: boolean;
  } = {},
): Promise<T> {
  // Loaded here, not at the top: the runtime pulls in the stores and the
  // model loader, which --help and usage errors have no use for.
  const { loadServerConfig, openEmbeddedRuntime, storeSelection } =
    await import('@keepgraph/runtime');
  // KEEPGRAPH_STORE / NEO4J_* select the store for local commands as for the
  // server; a command's own --store overrides the first and is checked alike.
  const env = opts.store ? { ...process.env, KEEPGRAPH_STORE: opts.store } : process.env;
  const config = loadServerConfig(env, { dataDir: g.dataDir });
  const runtime = await openEmbeddedRuntime({
    dataDir: g.dataDir,
    ...(config.auditSecret !== undefined && { auditSecret: config.auditSecret }),
    store: storeSelection(config),
    ...(g.policyPath ? { policyPath: g.policyPath } : {}),
    ...(g.modelId ? { modelId: g.modelId } : {}),
    // No timer: a command that runs for a second must not sweep mid-way;
    // `keepgraph expire` sweeps on request.
    // As `start` on the embedded default: 0 turns the background off; with
    // Redis configured, workers run it elsewhere.
    sweepIntervalMs:
      opts.background && config.redisUrl === undefined && config.sweepIntervalMs !== 0
        ? config.sweepIntervalMs
        : null,
    // Most commands embed nothing (keys, audit, forget, export): the model
    // loads on the first embedding, if there is one.
    lazyModel: true,
  });
  try {
    return await fn({
      engine: engineLimitedTo(runtime.engine, g.useCases),
      caller: callerOf(g),
      globals: g,
      runtime,
    });
  } finally {
    await runtime.close();
  }
}
