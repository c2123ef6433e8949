// How a use-case shows itself on the interfaces, declared on its registry
// row (`exposed(uc(...), { ... })`): its HTTP route, its MCP tool, its CLI
// command, a summary and the schema of its answer. The server, the MCP
// server, the CLI and both SDKs derive their binding of such a use-case
// from this row and `httpBinding` alone, so adding one touches its module,
// its row and its tests (docs/adding-a-use-case.md). Rows without an
// exposure are bound by hand in each interface (the older use-cases, whose
// HTTP shapes predate this table).
import type { z } from 'zod';
import type { Arg, UseCase } from './define.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** MCP's tool hints, by what the tool does. */
export type ToolKind = 'read' | 'write' | 'delete';

export interface Exposure {
  /** One line for people: the OpenAPI summary, the MCP tool's description, the CLI command's help. */
  summary: string;
  /** The answer (zod): serialises and documents the HTTP answer, and is the SDKs' model. */
  result: z.ZodType;
  /**
   * The route under /v1: `GET /owners/:ownerId/stats`. Path parameters name
   * arguments; the others travel in the query (GET, DELETE) or the body
   * (see httpBinding).
   */
  http: `${HttpMethod} /${string}`;
  /** The success status (default 200). */
  status?: number;
  /** The OpenAPI tag (the route's family in the docs); default `use-cases`. */
  tag?: string;
  /** The MCP tool, when agents may call it: its name and what it does. */
  mcp?: { name: string; kind: ToolKind };
  /** The CLI command, when people may run it locally: `keepgraph <command>`. */
  cli?: { command: string };
}

/** A use-case with its exposure. */
export type ExposedUseCase<U extends UseCase = UseCase> = U & { expose: Exposure };

/** Declare how a use-case shows itself on the interfaces (see the module header). */
export function exposed<U extends UseCase>(u: U, exposure: Exposure): ExposedUseCase<U> {
  // Built once here so that a route that cannot carry the arguments fails at load.
  bindingOf(u.args, exposure.http);
  return { ...u, expose: exposure };
}

/** One argument as HTTP carries it: a path parameter, the whole query or body, or one field of it. */
export interface BoundArg {
  name: string;
  in: 'path' | 'whole' | 'field';
  optional: boolean;
}

/** How an exposed use-case's arguments travel over HTTP. */
export interface HttpBinding {
  method: HttpMethod;
  /** Under /v1, with `:name` path parameters. */
  path: string;
  /** The engine method's arguments in order, each with where it travels. */
  args: BoundArg[];
  /** Where the arguments that are not in the path travel: the query for GET and DELETE, else the body. */
  restIn: 'query' | 'body';
  /** Whether the call changes anything (a write carries an Idempotency-Key). */
  write: boolean;
  status: number;
}

type SchemaDef = { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType> };
const defOf = (s: z.ZodType): SchemaDef => (s as unknown as { def: SchemaDef }).def;
const WRAPPERS = ['optional', 'default', 'prefault', 'nullable'];

/** A schema under its optional, default, prefault and nullable wrappers. */
export function unwrapSchema(s: z.ZodType): z.ZodType {
  let inner = s;
  while (WRAPPERS.includes(defOf(inner).type) && defOf(inner).innerType)
    inner = defOf(inner).innerType!;
  return inner;
}

/** The fields of an object schema (wrapped or not), or null for any other schema. */
export function objectShapeOf(s: z.ZodType): Record<string, z.ZodType> | null {
  const def = defOf(unwrapSchema(s));
  return def.type === 'object' ? (def.shape ?? {}) : null;
}

/**
 * The rule: an argument named by a path parameter travels in the path; of
 * the others, a single object argument is the whole query or body, and
 * otherwise each is one field of it, named as the argument.
 */
function bindingOf(args: readonly Arg[], http: Exposure['http'], status = 200): HttpBinding {
  const [method, path] = http.split(' ') as [HttpMethod, string];
  const params = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  for (const p of params)
    if (!args.some((a) => a.name === p))
      throw new Error(`${http}: path parameter :${p} names no argument`);
  const rest = args.filter((a) => !params.includes(a.name));
  const whole = rest.length === 1 && objectShapeOf(rest[0]!.schema) !== null;
  return {
    method,
    path,
    args: args.map((a) => ({
      name: a.name,
      in: params.includes(a.name) ? 'path' : whole ? 'whole' : 'field',
      optional: a.optional,
    })),
    restIn: method === 'GET' || method === 'DELETE' ? 'query' : 'body',
    write: method !== 'GET',
    status,
  };
}

/** The HTTP binding of an exposed use-case: the one rule every interface and SDK follows. */
export function httpBinding(u: ExposedUseCase): HttpBinding {
  return bindingOf(u.args, u.expose.http, u.expose.status ?? 200);
}

/** The engine method's arguments from a request's path parameters and its query or body. */
export function argumentsFrom(
  b: HttpBinding,
  params: Record<string, unknown>,
  rest: Record<string, unknown> | undefined,
): unknown[] {
  const out = b.args.map((a) =>
    a.in === 'path' ? params[a.name] : a.in === 'whole' ? rest : rest?.[a.name],
  );
  // Optional arguments left out at the end are not passed, as a caller would not.
  while (out.length > 0 && out[out.length - 1] === undefined) out.pop();
  return out;
}

/** The other way: the path parameters and the query or body of a call with these arguments. */
export function requestOf(
  b: HttpBinding,
  values: readonly unknown[],
): { params: Record<string, unknown>; rest: Record<string, unknown> | undefined } {
  const params: Record<string, unknown> = {};
  let rest: Record<string, unknown> | undefined;
  b.args.forEach((a, i) => {
    const v = values[i];
    if (a.in === 'path') params[a.name] = v;
    else if (a.in === 'whole') rest = v as Record<string, unknown> | undefined;
    else if (v !== undefined) rest = { ...rest, [a.name]: v };
  });
  return { params, rest };
}
