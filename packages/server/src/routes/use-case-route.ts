// A route is a use-case of core's registry bound to a method and a URL: which
// use-case, how its arguments come out of the request, and the schemas that
// document and serialise it. One function registers them all (the handler
// names the caller and calls the engine), so no route repeats handler
// boilerplate and none can reach past the engine: a test checks that every
// route under /v1 names a registry use-case (`config.useCase`).
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import type { z } from 'zod';
import {
  KeepGraphError,
  checkUseCaseCall,
  isKeepGraphError,
  type Answer,
  type Caller,
  type Engine,
  type UseCaseName,
} from '@keepgraph/core';
import { toHttpError } from '../error-handler.ts';
import { withErrors } from '../schemas/responses.ts';
import { IdempotencyHeaders } from '../schemas/requests.ts';
import type { RouteOptions } from './context.ts';

/** The engine method's arguments after the caller. */
export type UseCaseArgs<N extends UseCaseName> =
  Parameters<Engine[N]> extends [Caller, ...infer A] ? A : never;

/**
 * The parts of a request a route reads its arguments from, as its schemas
 * let them through (bodies the engine validates arrive as `unknown`; the
 * engine parses every argument again either way).
 */
export interface RouteRequest<P = unknown, Q = unknown, B = unknown> {
  params: P;
  query: Q;
  body: B;
}

type Out<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

export interface UseCaseRoute<
  N extends UseCaseName = UseCaseName,
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  /** The registry use-case this route runs. */
  useCase: N;
  method: HTTPMethods;
  /** Under /v1. */
  url: string;
  /** The OpenAPI tags: the route's family (routeFamily). */
  tags: string[];
  summary: string;
  description?: string;
  params?: P;
  querystring?: Q;
  body?: B;
  bodyLimit?: number;
  /**
   * What an Idempotency-Key does here: a write's first answer is replayed
   * (the default for every method but GET); a read ignores the key; a route
   * whose answer must never be stored (a new API key's secret) refuses it.
   */
  idempotency?: 'replay' | 'ignored' | 'refused';
  /** The success status (200 unless given) and its body's schema. */
  status?: number;
  response: z.ZodType;
  args(request: RouteRequest<Out<P>, Out<Q>, Out<B>>): UseCaseArgs<N>;
  /**
   * Answer as JSON lines (`application/x-ndjson`), page after page: `lines`
   * of each result, then the arguments of the next call (null after the
   * last). The first call is made before the answer starts, so its errors
   * are ordinary error bodies; a failure later cuts the stream short.
   */
  jsonl?: {
    lines(result: Awaited<ReturnType<Engine[N]>>): readonly unknown[];
    next(
      result: Awaited<ReturnType<Engine[N]>>,
      request: RouteRequest<Out<P>, Out<Q>, Out<B>>,
    ): UseCaseArgs<N> | null;
  };
  /** Shape the engine's answer for HTTP (wrap a list, turn "nothing" into not_found). */
  reply?(
    result: Awaited<ReturnType<Engine[N]>>,
    request: RouteRequest<Out<P>, Out<Q>, Out<B>>,
  ): unknown;
}

/**
 * Define a route: `useCaseRoute('forget')({ route: 'POST /owners/:ownerId/forget', ... })`.
 * Naming the use-case first fixes its argument types before TypeScript
 * reads `args`, so an array literal there is checked as the engine
 * method's argument list.
 */
export function useCaseRoute<N extends UseCaseName>(useCase: N) {
  return <
    P extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
  >(
    r: Omit<UseCaseRoute<N, P, Q, B>, 'useCase' | 'method' | 'url' | 'tags'> & {
      /** The method and the URL under /v1: 'DELETE /owners/:ownerId'. */
      route: `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;
      tags?: string[];
    },
  ): UseCaseRoute => {
    const { route, ...rest } = r;
    const [method, url] = route.split(' ') as [HTTPMethods, string];
    return { useCase, method, url, tags: [], ...rest } as unknown as UseCaseRoute;
  };
}

/** A route module's routes under one OpenAPI tag (a route that names its own keeps those). */
export function routeFamily(tag: string, routes: readonly UseCaseRoute[]): UseCaseRoute[] {
  return routes.map((r) => ({ ...r, tags: r.tags.length > 0 ? r.tags : [tag] }));
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The registry use-case a route runs (set on every use-case route; tests read it). */
    useCase?: UseCaseName;
  }
}

/**
 * Refusals of the caller or of the owner named, not of the request's
 * content: not kept under a key (a refused owner id must not be stored;
 * the caller's rights may change), so a retry is judged again.
 */
const NOT_KEPT = new Set(['owner_out_of_scope', 'forbidden_role', 'owner_required']);

export function registerUseCaseRoutes(
  app: FastifyInstance,
  routes: readonly UseCaseRoute[],
  { engine, callerOf }: RouteOptions,
): void {
  for (const r of routes) {
    const status = r.status ?? 200;
    const mode = r.idempotency ?? (r.method === 'GET' ? 'ignored' : 'replay');
    const call = engine[r.useCase] as (caller: Caller, ...args: unknown[]) => Promise<unknown>;
    app.route({
      method: r.method,
      url: r.url,
      ...(r.bodyLimit !== undefined && { bodyLimit: r.bodyLimit }),
      config: { useCase: r.useCase },
      schema: {
        tags: r.tags,
        summary: r.summary,
        ...(r.description !== undefined && { description: r.description }),
        ...(r.params && { params: r.params }),
        ...(r.querystring && { querystring: r.querystring }),
        ...(mode === 'replay' && { headers: IdempotencyHeaders }),
        ...(r.body && { body: r.body }),
        response: withErrors({ [status]: r.response }),
      },
      handler: async (request: FastifyRequest, reply) => {
        const req: RouteRequest = request;
        const caller = callerOf(request);
        const run = () => call(caller, ...(r.args(req as never) as unknown[]));
        const answer = async (): Promise<unknown> => {
          const result = await run();
          return r.reply ? r.reply(result as never, req as never) : result;
        };
        if (r.jsonl) {
          const { lines, next } = r.jsonl;
          let result = await run();
          async function* all() {
            for (;;) {
              for (const line of lines(result as never)) yield `${JSON.stringify(line)}\n`;
              const args = next(result as never, req as never);
              if (args === null) return;
              result = await call(caller, ...(args as unknown[]));
            }
          }
          void reply.status(status).type('application/x-ndjson');
          return reply.send(Readable.from(all()));
        }
        const key = request.headers['idempotency-key'];
        if (key === undefined || mode === 'ignored') {
          const body = await answer();
          void reply.status(status);
          return body;
        }
        if (mode === 'refused' || Array.isArray(key))
          throw new KeepGraphError(
            'invalid_input',
            mode === 'refused'
              ? 'this route takes no Idempotency-Key: its answer holds a secret that is never stored'
              : 'send one Idempotency-Key header',
            { issues: [{ path: 'headers.idempotency-key', message: 'not taken here' }] },
          );
        const args = r.args(req as never) as unknown[];
        // The engine's own checks, before a kept answer can be replayed: it
        // goes only to a caller the engine would let run this request now.
        checkUseCaseCall(r.useCase, caller, args);
        const params = (req.params ?? {}) as Record<string, unknown>;
        const replay = await engine.services.answerOnce(
          {
            caller,
            key,
            ownerId: typeof params.ownerId === 'string' ? params.ownerId : null,
            request: { method: r.method, url: request.url, body: request.body ?? null },
            params,
          },
          async (): Promise<Answer> => {
            try {
              const result = await call(caller, ...args);
              return { status, body: r.reply ? r.reply(result as never, req as never) : result };
            } catch (e) {
              // A refusal is an answer too (it wrote nothing): replayed as such.
              // Faults are not recorded, so a retry runs again.
              if (!isKeepGraphError(e) || NOT_KEPT.has(e.code) || e.details?.field === 'ownerId')
                throw e;
              const mapped = toHttpError(e, 0);
              if (mapped.fault) throw e;
              return { status: mapped.status, body: mapped.body };
            }
          },
        );
        void reply.header('idempotent-replayed', String(replay.replayed));
        void reply.status(replay.status);
        return replay.body;
      },
    });
  }
}

/** A query string's parameters without the absent ones (the engine's schemas are strict). */
export function definedOnly<T extends Record<string, unknown>>(q: T): T {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as T;
}
