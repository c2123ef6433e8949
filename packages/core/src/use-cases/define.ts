// How a use-case is defined: its roles, its input (one zod schema per
// argument, in the engine's order) and its body, which receives the input
// already parsed. The engine (engine.ts) checks the caller and the roles and
// parses the input before any body runs, so no body repeats those lines;
// interfaces (HTTP, CLI, later MCP) document their requests from the same
// schemas. Each module defines its own use-cases; registry.ts lists them.
import { z } from 'zod';
import { ROLES, type Role } from '../record.ts';
import { checkOwner, parseInput, type Caller, type EngineDeps } from './deps.ts';

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

/** Role sets that recur across use-cases. */
export const EVERYONE = ROLES;
export const PEOPLE = ['operator', 'user'] as const satisfies readonly Role[];
export const OPERATORS = ['operator'] as const satisfies readonly Role[];
/** A tool writes what it observed; deleting memories is for people and agents. */
export const DELETERS = ['operator', 'user', 'agent'] as const satisfies readonly Role[];

type InputShape = Record<string, z.ZodType>;
type Names<S> = readonly (keyof S & string)[];

/** What a body receives: every argument parsed (defaults filled in). */
export type ParsedInput<S extends InputShape> = { [K in keyof S]: z.output<S[K]> };

type ArgsIn<S extends InputShape, N extends Names<S>> = {
  -readonly [I in keyof N]: z.input<S[N[I]]>;
};

/** The engine method's arguments after the caller: required ones, then optional ones. */
export type PositionalArgs<S extends InputShape, A extends Names<S>, O extends Names<S>> = [
  ...ArgsIn<S, A>,
  ...Partial<ArgsIn<S, O>>,
];

export interface UseCase<
  S extends InputShape = InputShape,
  A extends Names<S> = Names<S>,
  O extends Names<S> = Names<S>,
  R = unknown,
> {
  /** What the caller is doing, as a refusal says it: "forgetting a whole owner". */
  action: string;
  /** The caller roles that may run it; any other gets `forbidden_role` before it runs. */
  roles: readonly Role[];
  /** One schema per argument. */
  input: S;
  /** The engine method's required arguments after the caller, in order. */
  args: A;
  /** Then its optional ones, in order (a missing one is parsed from `undefined`). */
  optionalArgs?: O;
  run(deps: EngineDeps, caller: Caller, input: ParsedInput<S>): Promise<R>;
}

export function defineUseCase<
  const S extends InputShape,
  const A extends Names<S>,
  R,
  const O extends Names<S> = [],
>(u: UseCase<S, A, O, R>): UseCase<S, A, O, R> {
  return u;
}

/** Every argument name of a use-case, in the engine's order. */
export function argumentNames(u: UseCase): string[] {
  return [...u.args, ...(u.optionalArgs ?? [])];
}

/**
 * Parse positional arguments into a use-case's input, in order, so the first
 * bad argument is the one reported (the owner before the body, as before).
 * Each argument is parsed on its own: error paths stay relative to it
 * (`text`, not `input.text`).
 */
export function parseUseCaseInput(u: UseCase, args: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [i, name] of argumentNames(u).entries()) {
    const schema = u.input[name]!;
    out[name] = schema === OWNER_ID ? checkOwner(args[i]) : parseInput(schema, args[i]);
  }
  return out;
}
