// Authentication for every route but the public ones: the caller of a
// request is the credential in its `Authorization: Bearer` header, an API
// key of the store or a JWT of the configured identity provider, never
// anything in its body. A missing, malformed, unknown, revoked or expired
// credential is 401 `unauthenticated`, all alike. Rate limits: requests per
// credential, and failed authentications per client address (429 with
// Retry-After). Registered with fastify-plugin so its hooks cover the app.
// One more bearer token exists, for GET /metrics alone: the metrics token
// a Prometheus scrapes with (KEEPGRAPH_METRICS_TOKEN), so it needs no key.
import { createHash, timingSafeEqual } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  KeepGraphError,
  isKeepGraphError,
  looksLikeApiKey,
  type Caller,
  type Credential,
  type Engine,
} from '@keepgraph/core';
import { sendError, toHttpError } from '../error-handler.ts';
import type { JwtVerifier } from './jwt.ts';

/**
 * Paths any client may read: liveness, the API's documentation and the web
 * UI's static files (which hold no data: the app asks for a key and sends
 * it to /v1 like any client).
 */
export function isPublicPath(url: string): boolean {
  const path = url.split('?')[0]!;
  return (
    path === '/healthz' ||
    path === '/openapi.json' ||
    path === '/docs' ||
    path.startsWith('/docs/') ||
    path === '/ui' ||
    path.startsWith('/ui/')
  );
}

/** Options of {@link authenticationPlugin}. */
export interface AuthenticationOptions {
  engine: Engine;
  jwt?: JwtVerifier;
  /** Requests per minute per credential; 0 or absent: no limit. */
  rateLimitPerMinute?: number;
  /** Failed authentications per minute per client address; 0 or absent: no limit. */
  authFailuresPerMinute?: number;
  /** A token that authenticates GET {@link METRICS_PATH} and nothing else; absent: none. */
  metricsToken?: string;
}

/** The Prometheus exposition's path. */
export const METRICS_PATH = '/metrics';

/** Requests authenticated by the metrics token (they carry no credential). */
const metricsTokenRequests = new WeakSet<FastifyRequest>();

/** Whether a request was authenticated by the metrics token (GET /metrics only). */
export function isMetricsTokenRequest(request: FastifyRequest): boolean {
  return metricsTokenRequests.has(request);
}

/** Equal tokens, in time that does not depend on where they differ (nor on their lengths). */
function sameToken(a: string, b: string): boolean {
  const digest = (t: string) => createHash('sha256').update(t).digest();
  return timingSafeEqual(digest(a), digest(b));
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated credential (null on public paths). */
    credential: Credential | null;
    /**
     * Count `n` more calls of this request against its credential's rate
     * limit: a request that carries several calls (an MCP JSON-RPC batch)
     * pays for each, so a batch cannot buy many calls for one. Throws
     * rate_limited (Retry-After set on `reply`) once past the limit.
     */
    countCalls?: (reply: FastifyReply, n: number) => Promise<void>;
  }
}

/** The `Bearer` token of a request, or null. */
function bearerToken(request: FastifyRequest): string | null {
  const h = request.headers.authorization;
  if (typeof h !== 'string') return null;
  const m = /^Bearer[ \t]+(\S{1,4096})[ \t]*$/i.exec(h);
  return m ? m[1]! : null;
}

function unauthenticated(reply: FastifyReply, message: string) {
  void reply.header('www-authenticate', 'Bearer realm="keepgraph"');
  return new KeepGraphError('unauthenticated', message);
}

function rateLimited(reply: FastifyReply, ttlSeconds: number) {
  void reply.header('retry-after', String(Math.max(1, ttlSeconds)));
  return new KeepGraphError(
    'rate_limited',
    `too many requests; retry in ${Math.max(1, ttlSeconds)} s`,
    {
      retryAfterSeconds: Math.max(1, ttlSeconds),
    },
  );
}

export const authenticationPlugin = fp<AuthenticationOptions>(
  async (app, opts) => {
    app.decorateRequest('credential', null);
    app.decorateRequest('countCalls', async function (this: FastifyRequest, reply, n) {
      if (perCredential === null || this.credential === null) return;
      for (let i = 0; i < n; i += 1) {
        const limit = await perCredential(this);
        if (!limit.isAllowed && limit.isExceeded) throw rateLimited(reply, limit.ttlInSeconds);
      }
    });
    // Limits are checked by hand (createRateLimit) so they key on what the
    // hook has found: the principal, or the address of a failed attempt.
    await app.register(rateLimit, { global: false });
    const perCredential =
      opts.rateLimitPerMinute && opts.rateLimitPerMinute > 0
        ? app.createRateLimit({
            max: opts.rateLimitPerMinute,
            timeWindow: 60_000,
            keyGenerator: (r) => r.credential?.principal ?? r.ip,
          })
        : null;
    const perFailure =
      opts.authFailuresPerMinute && opts.authFailuresPerMinute > 0
        ? app.createRateLimit({
            max: opts.authFailuresPerMinute,
            timeWindow: 60_000,
            keyGenerator: (r) => r.ip,
          })
        : null;

    const credentialOf = async (token: string): Promise<Credential | null> => {
      if (looksLikeApiKey(token)) return opts.engine.services.authenticate(token);
      return opts.jwt ? opts.jwt(token) : null;
    };

    const check = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const token = bearerToken(request);
      if (
        token !== null &&
        opts.metricsToken !== undefined &&
        request.url.split('?')[0] === METRICS_PATH &&
        sameToken(token, opts.metricsToken)
      ) {
        metricsTokenRequests.add(request);
        // Limited like a credential, by address (it names no principal).
        const limit = perCredential ? await perCredential(request) : null;
        if (limit && !limit.isAllowed && limit.isExceeded)
          throw rateLimited(reply, limit.ttlInSeconds);
        return;
      }
      const credential = token === null ? null : await credentialOf(token);
      if (credential === null) {
        const limit = perFailure ? await perFailure(request) : null;
        if (limit && !limit.isAllowed && limit.isExceeded)
          throw rateLimited(reply, limit.ttlInSeconds);
        throw unauthenticated(
          reply,
          token === null
            ? 'send a credential: Authorization: Bearer <API key or JWT>'
            : 'the credential is not valid (unknown, revoked, expired or malformed)',
        );
      }
      request.credential = credential;
      const limit = perCredential ? await perCredential(request) : null;
      if (limit && !limit.isAllowed && limit.isExceeded)
        throw rateLimited(reply, limit.ttlInSeconds);
    };

    app.addHook('onRequest', async (request, reply) => {
      // A CORS preflight carries no credentials by design, and runs nothing.
      if (isPublicPath(request.url) || request.method === 'OPTIONS') return;
      try {
        await check(request, reply);
      } catch (e) {
        if (!isKeepGraphError(e)) throw e;
        // Answered here, not thrown: a route of a plugin with its own error
        // handler (Bull Board) would turn a thrown refusal into a 500.
        // A store away while the credential is looked up is a fault: logged.
        const m = toHttpError(e, 0);
        if (m.fault) request.log.error({ err: e }, 'authentication failed');
        return sendError(reply, m);
      }
    });
  },
  { name: 'keepgraph-authentication' },
);

/** The caller of an authenticated request (a route runs only after the hook found one). */
export function callerOfRequest(request: FastifyRequest): Caller {
  if (request.credential === null)
    throw new KeepGraphError(
      'unauthenticated',
      'send a credential: Authorization: Bearer <API key or JWT>',
    );
  return { ...request.credential, requestId: request.id };
}
