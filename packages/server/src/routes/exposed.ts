// The routes of the use-cases that declare their exposure in core's registry
// (exposure.ts): each derived from its row and the one binding rule, with
// nothing written here per use-case. Path parameters arrive as strings; a
// query's numbers and booleans are read as such where the argument's schema
// wants them (the engine parses every argument again either way).
import { z } from 'zod';
import {
  USE_CASES,
  argumentsFrom,
  httpBinding,
  objectShapeOf,
  unwrapSchema,
  type ExposedUseCase,
  type HttpBinding,
  type UseCaseName,
} from '@keepgraph/core';
import { definedOnly, useCaseRoute, type UseCaseRoute } from './use-case-route.ts';

/** The query's given parameters, or nothing when none was given (an optional argument left out). */
function queryOrNothing(q: unknown): Record<string, unknown> | undefined {
  const given = definedOnly((q ?? {}) as Record<string, unknown>);
  return Object.keys(given).length === 0 ? undefined : given;
}

/** A query parameter as it arrives (text), read as the argument's schema wants it. */
function queryParam(s: z.ZodType): z.ZodType {
  const type = (unwrapSchema(s) as unknown as { def: { type: string } }).def.type;
  if (type === 'number') return z.coerce.number().optional();
  if (type === 'boolean') return z.stringbool().optional();
  return z.string().optional();
}

/** The schema the query or body is documented (and, for a query, read) with. */
function restSchema(u: ExposedUseCase, b: HttpBinding): z.ZodType | undefined {
  const rest = u.args.filter((_a, i) => b.args[i]!.in !== 'path');
  if (rest.length === 0) return undefined;
  const whole = b.args.find((a) => a.in === 'whole');
  const fields: Record<string, z.ZodType> = whole
    ? (objectShapeOf(rest[0]!.schema) ?? {})
    : Object.fromEntries(rest.map((a) => [a.name, a.schema]));
  if (b.restIn === 'body') return z.object(fields).partial();
  return z.object(Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, queryParam(s)])));
}

/** One route per exposed use-case of the registry (or of `registry`, for tests). */
export function exposedRoutes(registry: object = USE_CASES): UseCaseRoute[] {
  const rows = Object.entries(registry) as [UseCaseName, ExposedUseCase | { expose?: never }][];
  return rows
    .filter((r): r is [UseCaseName, ExposedUseCase] => r[1].expose !== undefined)
    .map(([name, u]) => {
      const b = httpBinding(u);
      const params = z.object(
        Object.fromEntries(b.args.filter((a) => a.in === 'path').map((a) => [a.name, z.string()])),
      );
      const rest = restSchema(u, b);
      return useCaseRoute(name)({
        route: u.expose.http,
        summary: u.expose.summary,
        tags: [u.expose.tag ?? 'use-cases'],
        params,
        ...(rest && (b.restIn === 'query' ? { querystring: rest } : { body: rest })),
        ...(u.expose.status !== undefined && { status: u.expose.status }),
        response: u.expose.result,
        args: ({ params: p, query, body }) =>
          argumentsFrom(
            b,
            p as Record<string, unknown>,
            (b.restIn === 'query' ? queryOrNothing(query) : body) as
              Record<string, unknown> | undefined,
          ) as never,
      });
    });
}
