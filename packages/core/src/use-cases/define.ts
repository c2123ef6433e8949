// How a use-case is defined: what the caller is doing (for refusals), the
// roles that may do it, its arguments (a name and a zod schema each, in the
// engine method's order) and its body, which receives them parsed. The
// engine (engine.ts) checks the caller and the roles and parses every
// argument before a body runs, so no body repeats those lines; interfaces
// (HTTP, CLI, later MCP) document their requests from the same schemas.
// Modules define arguments and bodies; registry.ts names the use-cases.
import { z } from 'zod';
import { ROLES, type Role } from '../domain/record.ts';
import {
  checkOwner,
  parseInput,
  requireAllOwners,
  requireOwnerInScope,
  type Caller,
  type EngineDeps,
} from '../services/deps.ts';

/**
 * The schema of an owner-id argument. Parsed by `checkOwner`, not by zod, so a
 * blank or missing owner is `owner_required` and a malformed one
 * `invalid_input` on field `ownerId`, on every use-case alike.
 */
export const OWNER_ID: z.ZodType<string, unknown> = z.string().describe('The owner id');

/**
 * An argument that callers may hand over unchecked (an HTTP body, a parsed
 * file): typed `unknown` on the engine method, judged by `schema` at run time.
 */
export function uncheckedArg<S extends z.ZodType>(schema: S): z.ZodType<z.output<S>, unknown> {
  return schema as z.ZodType<z.output<S>, unknown>;
}

/** Role sets that recur across use-cases (docs/authorization.md shows them as a table). */
export const EVERYONE = ROLES;
/** Every role that writes: all but the analyst, who reads and changes nothing. */
export const WRITERS = ['operator', 'user', 'tool', 'agent'] as const satisfies readonly Role[];
export const PEOPLE = ['operator', 'user'] as const satisfies readonly Role[];
export const OPERATORS = ['operator'] as const satisfies readonly Role[];
/** Operators, and analysts on the owners of their credentials. */
export const OVERSEERS = ['operator', 'analyst'] as const satisfies readonly Role[];
/** A tool writes what it observed; deleting memories is for people and agents. */
export const DELETERS = ['operator', 'user', 'agent'] as const satisfies readonly Role[];

/** One argument of a use-case: its name in the parsed input, its schema, whether it may be left out. */
export interface Arg<
  N extends string = string,
  S extends z.ZodType = z.ZodType,
  O extends boolean = boolean,
> {
  name: N;
  schema: S;
  optional: O;
}

export function arg<const N extends string, S extends z.ZodType>(
  name: N,
  schema: S,
): Arg<N, S, false> {
  return { name, schema, optional: false };
}

/** An argument callers may leave out (only after the required ones); `schema` parses `undefined`. */
export function optionalArg<const N extends string, S extends z.ZodType>(
  name: N,
  schema: S,
): Arg<N, S, true> {
  return { name, schema, optional: true };
}

export type Args = readonly Arg[];

/** What a body receives: every argument parsed (defaults filled in), by name. */
export type ParsedArgs<A extends Args> = { [E in A[number] as E['name']]: z.output<E['schema']> };

type Required<A> = A extends readonly [infer H extends Arg, ...infer T]
  ? H['optional'] extends true
    ? []
    : [z.input<H['schema']>, ...Required<T>]
  : [];
type Optional<A> = A extends readonly [infer H extends Arg, ...infer T]
  ? H['optional'] extends true
    ? [z.input<H['schema']>, ...Optional<T>]
    : Optional<T>
  : [];

/** The engine method's arguments after the caller: the required ones, then the optional ones. */
export type PositionalArgs<A extends Args> = [...Required<A>, ...Partial<Optional<A>>];

/** The one optional argument of a use-case with a dry run (its options), as callers give it. */
type DryRunOptions<A extends Args> = NonNullable<PositionalArgs<A>[Required<A>['length']]>;

/** A dry run's answer: a result marked `dryRun: true` (a preview; nothing was changed). */
export type Preview<R> = Extract<R, { dryRun: true }>;

/**
 * The engine method of a use-case with a dry run (its answer may be a
 * Preview, and its one optional argument takes `dryRun`), as overloads:
 * a call that asks for the dry run is typed with the preview, one that does
 * not with the other answer (forget's receipt), and one that cannot tell
 * with either.
 */
export interface DryRunMethod<A extends Args, R> {
  (
    caller: Caller,
    ...args: [...Required<A>, DryRunOptions<A> & { dryRun: true }]
  ): Promise<Preview<R>>;
  (
    caller: Caller,
    ...args: [...Required<A>] | [...Required<A>, DryRunOptions<A> & { dryRun?: false }]
  ): Promise<Exclude<R, Preview<R>>>;
  (caller: Caller, ...args: PositionalArgs<A>): Promise<R>;
}

export interface UseCase<A extends Args = Args, R = unknown> {
  /** What the caller is doing, as a refusal says it: "forgetting a whole owner". */
  action: string;
  /** The caller roles that may run it; any other gets `forbidden_role` before it runs. */
  roles: readonly Role[];
  args: A;
  /** The body: its arguments parsed, then the caller (already checked against `roles`). */
  run(deps: EngineDeps, input: ParsedArgs<A>, caller: Caller): Promise<R>;
  /**
   * For a use-case without an owner argument that may still be narrowed to
   * one owner (the audit log, the KPIs): that owner, if the input names one.
   * A caller scoped to some owners must name one of them. A use-case with
   * neither spans every owner and needs all-owners credentials.
   */
  ownerIn?(input: ParsedArgs<A>): string | undefined;
  /**
   * `'caller'`: the use-case reads only the caller itself (its credential)
   * or the owners the caller already holds, which the body narrows to from
   * `caller.owners`; it names no owner and spans none, so a caller scoped
   * to some owners may run it. Set with {@link callerScoped}, where the
   * registry shows it.
   */
  scope?: 'caller';
}

/**
 * Check the caller's owner scope where a use-case has no owner argument
 * (those are checked as they are parsed, see parseUseCaseInput). Before the
 * input is parsed (`input` undefined), a use-case that spans every owner
 * needs all-owners credentials; after, one narrowed by `ownerIn` needs the
 * owner it names, or all owners when it names none.
 */
export function checkSpanScope(
  u: UseCase,
  input: Record<string, unknown> | undefined,
  caller: Caller,
): void {
  if (u.args.some((a) => a.schema === OWNER_ID) || u.scope === 'caller') return;
  if (input === undefined) {
    if (!u.ownerIn) requireAllOwners(caller, u.action);
    return;
  }
  const narrowed = u.ownerIn?.(input as never);
  if (narrowed === undefined) requireAllOwners(caller, u.action);
  else requireOwnerInScope(caller, narrowed);
}

/** One row of the registry: `defineUseCase('recalling', EVERYONE, RecallArgs, recall)`. */
export function defineUseCase<const A extends Args, R>(
  action: string,
  roles: readonly Role[],
  args: A,
  run: (deps: EngineDeps, input: ParsedArgs<A>, caller: Caller) => Promise<R>,
  ownerIn?: (input: ParsedArgs<A>) => string | undefined,
): UseCase<A, R> {
  return { action, roles, args, run, ...(ownerIn && { ownerIn }) };
}

/**
 * Bodies of a use-case module that loads the policy gate or the ranking,
 * for the registry's rows: each loads the module on its first call, so
 * that reading the registry (the CLI building its commands, `--help`
 * included) loads only the arguments' schemas (in the module's
 * `-args.ts`). A process that runs an engine has the module loaded already
 * (the package's root exports it), so a first call only waits for the
 * import to resolve; later calls call the body itself.
 */
export function lazyBodies<M, const K extends keyof M>(
  load: () => Promise<M>,
  names: readonly K[],
): Pick<M, K> {
  let loading: Promise<M> | undefined;
  const bodies = {} as Pick<M, K>;
  for (const name of names) {
    let body: ((...args: unknown[]) => unknown) | undefined;
    const run = (...args: unknown[]): unknown => {
      if (body) return body(...args);
      loading ??= load();
      return loading.then((m) => {
        body = m[name] as (...args: unknown[]) => unknown;
        return body(...args);
      });
    };
    bodies[name] = run as M[K];
  }
  return bodies;
}

/**
 * Mark a use-case as reading only its caller: who it is, or the owners it
 * holds (see `UseCase.scope`). The body must never read past `caller.owners`.
 */
export function callerScoped<U extends UseCase>(u: U): U & { scope: 'caller' } {
  if (u.args.some((a) => a.schema === OWNER_ID) || u.ownerIn)
    throw new Error(`${u.action}: a use-case naming an owner is scoped by it, not by the caller`);
  return { ...u, scope: 'caller' };
}

/**
 * Parse positional arguments into a use-case's input, in order, so the first
 * bad argument is the one reported (the owner before the body). Each is
 * parsed on its own: error paths stay relative to it (`text`, not `input.text`).
 * An owner is checked against the caller's scope as soon as it is parsed,
 * so a caller outside it learns nothing from the arguments after it.
 */
export function parseUseCaseInput(
  u: UseCase,
  values: readonly unknown[],
  caller?: Caller,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [i, a] of u.args.entries()) {
    if (a.schema !== OWNER_ID) {
      out[a.name] = parseInput(a.schema, values[i]);
      continue;
    }
    const owner = checkOwner(values[i]);
    if (caller) requireOwnerInScope(caller, owner);
    out[a.name] = owner;
  }
  return out;
}
