// Server configuration: read from the environment (and CLI overrides) and
// validated once, at the edge (STYLE habit 7). Nothing below this module
// reads process.env; the runtime and the app receive plain values.
import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_POLICY_PATH } from '@keepgraph/core/policy';
import { DEFAULT_MODEL_ID, MODEL_IDS, type ModelId } from '@keepgraph/embedder';
import { STORE_KINDS, type StoreKind } from './store-kinds.ts';

export { STORE_KINDS, type StoreKind };

/** Everything `startServer` needs, after defaults and validation. */
export interface ServerConfig {
  /** Folder holding `keepgraph.db` (created if missing). */
  dataDir: string;
  host: string;
  port: number;
  /** Path to the policy YAML, loaded and validated before anything is stored. */
  policyPath: string;
  /**
   * One of the installed transformers.js models (see scripts/setup-models.sh),
   * or `hashing-384`: a deterministic embedder with no meaning and no model
   * files, for tests whose assertions do not depend on recall quality.
   */
  modelId: ModelId;
  /** Where the embedding models live; undefined = the embedder's own default. */
  modelsDir: string | undefined;
  /** Expiry sweep period in ms (embedded mode's in-process background); 0 runs no background jobs in this process. */
  sweepIntervalMs: number | undefined;
  store: StoreKind;
  /** Bolt URI of Neo4j; required when `store` is `neo4j`. */
  neo4jUri: string | undefined;
  neo4jUser: string | undefined;
  neo4jPassword: string | undefined;
  /** Database name; undefined = the server's default database. */
  neo4jDatabase: string | undefined;
  /**
   * Redis for BullMQ (server mode): when set, background jobs run in
   * `keepgraph worker` processes, fed through the store's outbox; when unset
   * (embedded mode), they run in this process.
   */
  redisUrl: string | undefined;
  /** Key prefix of the BullMQ queues, so deployments can share one Redis. */
  redisPrefix: string;
  /**
   * The installation's audit secret (keyed hashes of keys, session ids and
   * refused text in the audit log). Unset: `audit.secret` in the data dir,
   * created on first start. Set it when server and workers share no data dir.
   */
  auditSecret: string | undefined;
  /**
   * JWTs from an identity provider, besides API keys: verified with a shared
   * HMAC secret or the provider's JWKS, issuer and audience checked. Unset
   * (both): only API keys authenticate.
   */
  jwtSecret: string | undefined;
  jwksUrl: string | undefined;
  jwtIssuer: string | undefined;
  jwtAudience: string | undefined;
  /** The claim holding the role, and the one holding the owners (a list, or "all"). */
  jwtRoleClaim: string;
  jwtOwnersClaim: string;
  /** Requests per minute per credential (0: no limit). */
  rateLimitPerMinute: number;
  /** Failed authentications per minute per client address before 429 (0: no limit). */
  authFailuresPerMinute: number;
  /** Origins allowed by CORS; unset: CORS off (no browser on another origin may call). */
  corsOrigins: string[] | undefined;
  /**
   * A bearer token for `GET /metrics` alone, for a Prometheus that should
   * hold no operator key; unset: only operator credentials read metrics.
   */
  metricsToken: string | undefined;
}

/**
 * Overrides (e.g. CLI flags) go through the same validation as the
 * environment, so each may also be given as the raw string.
 */
export type ServerConfigOverrides = { [K in keyof ServerConfig]?: ServerConfig[K] | string };

/** The environment variable behind each config field, for error messages. */
export const CONFIG_ENV: Readonly<Record<keyof ServerConfig, string>> = {
  dataDir: 'KEEPGRAPH_DATA_DIR',
  host: 'KEEPGRAPH_HOST',
  port: 'KEEPGRAPH_PORT',
  policyPath: 'KEEPGRAPH_POLICY',
  modelId: 'KEEPGRAPH_MODEL',
  modelsDir: 'KEEPGRAPH_MODELS_DIR',
  sweepIntervalMs: 'KEEPGRAPH_SWEEP_INTERVAL_MS',
  store: 'KEEPGRAPH_STORE',
  neo4jUri: 'NEO4J_URI',
  neo4jUser: 'NEO4J_USER',
  neo4jPassword: 'NEO4J_PASSWORD',
  neo4jDatabase: 'NEO4J_DATABASE',
  redisUrl: 'KEEPGRAPH_REDIS_URL',
  redisPrefix: 'KEEPGRAPH_REDIS_PREFIX',
  auditSecret: 'KEEPGRAPH_AUDIT_SECRET',
  jwtSecret: 'KEEPGRAPH_JWT_SECRET',
  jwksUrl: 'KEEPGRAPH_JWKS_URL',
  jwtIssuer: 'KEEPGRAPH_JWT_ISSUER',
  jwtAudience: 'KEEPGRAPH_JWT_AUDIENCE',
  jwtRoleClaim: 'KEEPGRAPH_JWT_ROLE_CLAIM',
  jwtOwnersClaim: 'KEEPGRAPH_JWT_OWNERS_CLAIM',
  rateLimitPerMinute: 'KEEPGRAPH_RATE_LIMIT',
  authFailuresPerMinute: 'KEEPGRAPH_AUTH_FAILURE_LIMIT',
  corsOrigins: 'KEEPGRAPH_CORS_ORIGINS',
  metricsToken: 'KEEPGRAPH_METRICS_TOKEN',
};

/** Variables that configured something now taken from credentials: naming one is an error. */
const RETIRED_ENV: Readonly<Record<string, string>> = {
  KEEPGRAPH_ROLE: 'the role comes from the API key or JWT of each request',
  KEEPGRAPH_PRINCIPAL: 'the principal is the API key id or the JWT subject of each request',
};

const nonBlank = z.string().trim().min(1, 'must not be blank');

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (issue) => `must be one of ${values.join(', ')} (got ${JSON.stringify(issue.input)})`,
  });
}

const ConfigSchema = z
  .object({
    dataDir: nonBlank.transform((p) => resolve(p)),
    host: nonBlank,
    port: z.coerce
      .number({ error: 'must be a number' })
      .int('must be an integer')
      .min(0, 'must be between 0 and 65535')
      .max(65_535, 'must be between 0 and 65535'),
    policyPath: nonBlank.transform((p) => resolve(p)),
    modelId: oneOf(MODEL_IDS as readonly [ModelId, ...ModelId[]]),
    modelsDir: nonBlank.transform((p) => resolve(p)).optional(),
    sweepIntervalMs: z.coerce
      .number({ error: 'must be a number' })
      .int('must be an integer')
      .min(0, 'must be >= 0 (0 runs no background jobs in this process)')
      .optional(),
    store: oneOf(STORE_KINDS),
    neo4jUri: z
      .string()
      .trim()
      .regex(/^(bolt|neo4j)(\+s|\+ssc)?:\/\/\S+$/, 'must be a bolt:// or neo4j:// URI')
      .optional(),
    neo4jUser: nonBlank.optional(),
    neo4jPassword: z.string().optional(),
    neo4jDatabase: nonBlank.optional(),
    redisUrl: z
      .string()
      .trim()
      .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL')
      .optional(),
    redisPrefix: nonBlank.max(64).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only'),
    auditSecret: z.string().trim().min(32, 'must have at least 32 characters').optional(),
    jwtSecret: z
      .string()
      .min(32, 'must have at least 32 characters (HS256 needs 256 bits)')
      .optional(),
    jwksUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    jwtIssuer: nonBlank.optional(),
    jwtAudience: nonBlank.optional(),
    jwtRoleClaim: nonBlank,
    jwtOwnersClaim: nonBlank,
    rateLimitPerMinute: z.coerce
      .number({ error: 'must be a number' })
      .int('must be an integer')
      .min(0),
    authFailuresPerMinute: z.coerce
      .number({ error: 'must be a number' })
      .int('must be an integer')
      .min(0),
    corsOrigins: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((o) => o.trim())
          .filter((o) => o !== ''),
      )
      .optional(),
    // A bearer token, as Prometheus sends it: printable, no spaces, long
    // enough not to be guessed (`openssl rand -hex 32`).
    metricsToken: z
      .string()
      .trim()
      .min(32, 'must have at least 32 characters')
      .max(4096, 'must have at most 4096 characters')
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces only')
      .optional(),
  })
  .superRefine((c, ctx) => {
    if (c.jwtSecret !== undefined && c.jwksUrl !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['jwksUrl'],
        message: 'give KEEPGRAPH_JWT_SECRET or KEEPGRAPH_JWKS_URL, not both',
      });
    }
    if (
      (c.jwtSecret !== undefined || c.jwksUrl !== undefined) &&
      (!c.jwtIssuer || !c.jwtAudience)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: [c.jwtIssuer ? 'jwtAudience' : 'jwtIssuer'],
        message: 'is required with JWT authentication (issuer and audience are both checked)',
      });
    }
    if (c.store === 'neo4j' && !c.neo4jUri) {
      ctx.addIssue({
        code: 'custom',
        path: ['neo4jUri'],
        message: 'is required when KEEPGRAPH_STORE=neo4j',
      });
    }
    if (c.neo4jUser !== undefined && c.neo4jPassword === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['neo4jPassword'],
        message: 'is required with NEO4J_USER',
      });
    }
  });

/** An environment variable set to the empty string counts as unset. */
function envValue(env: NodeJS.ProcessEnv, field: keyof ServerConfig): string | undefined {
  const v = env[CONFIG_ENV[field]];
  return v === undefined || v.trim() === '' ? undefined : v;
}

/**
 * Read and validate the server configuration.
 *
 * Precedence: `overrides` (e.g. CLI flags) over `env` over defaults. Defaults:
 * data dir `<cwd>/.data`, host 127.0.0.1, port 7411, core's default policy, the embedder's default model, the policy's expiry sweep period
 * and the SQLite store.
 *
 * @throws Error listing every invalid setting, each named by its variable.
 */
export function loadServerConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: ServerConfigOverrides = {},
): ServerConfig {
  const raw: Record<keyof ServerConfig, unknown> = {
    dataDir: envValue(env, 'dataDir') ?? resolve(process.cwd(), '.data'),
    host: envValue(env, 'host') ?? '127.0.0.1',
    port: envValue(env, 'port') ?? 7411,
    policyPath: envValue(env, 'policyPath') ?? DEFAULT_POLICY_PATH,
    modelId: envValue(env, 'modelId') ?? DEFAULT_MODEL_ID,
    modelsDir: envValue(env, 'modelsDir'),
    sweepIntervalMs: envValue(env, 'sweepIntervalMs'),
    store: envValue(env, 'store') ?? 'sqlite',
    neo4jUri: envValue(env, 'neo4jUri'),
    neo4jUser: envValue(env, 'neo4jUser'),
    neo4jPassword: envValue(env, 'neo4jPassword'),
    neo4jDatabase: envValue(env, 'neo4jDatabase'),
    redisUrl: envValue(env, 'redisUrl'),
    redisPrefix: envValue(env, 'redisPrefix') ?? 'keepgraph',
    auditSecret: envValue(env, 'auditSecret'),
    jwtSecret: envValue(env, 'jwtSecret'),
    jwksUrl: envValue(env, 'jwksUrl'),
    jwtIssuer: envValue(env, 'jwtIssuer'),
    jwtAudience: envValue(env, 'jwtAudience'),
    jwtRoleClaim: envValue(env, 'jwtRoleClaim') ?? 'keepgraph_role',
    jwtOwnersClaim: envValue(env, 'jwtOwnersClaim') ?? 'keepgraph_owners',
    rateLimitPerMinute: envValue(env, 'rateLimitPerMinute') ?? 1200,
    authFailuresPerMinute: envValue(env, 'authFailuresPerMinute') ?? 120,
    corsOrigins: envValue(env, 'corsOrigins'),
    metricsToken: envValue(env, 'metricsToken'),
  };
  const retired = Object.keys(RETIRED_ENV)
    .filter((k) => (env[k] ?? '').trim() !== '')
    .map((k) => `  ${k}: no longer read: ${RETIRED_ENV[k]}`);
  // An override explicitly set to undefined must not erase the env value.
  for (const [k, v] of Object.entries(overrides)) {
    if (v !== undefined) raw[k as keyof ServerConfig] = v;
  }
  const r = ConfigSchema.safeParse(raw);
  if (!r.success || retired.length > 0) {
    const problems = (r.success ? [] : r.error.issues).map((i) => {
      const field = i.path[0] as keyof ServerConfig | undefined;
      const name = field ? CONFIG_ENV[field] : '(config)';
      return `  ${name}: ${i.message}`;
    });
    throw new Error(
      `invalid KeepGraph server configuration:\n${[...retired, ...problems].join('\n')}`,
    );
  }
  const d = r.data;
  return {
    ...d,
    modelsDir: d.modelsDir,
    neo4jUri: d.neo4jUri,
    neo4jUser: d.neo4jUser,
    neo4jPassword: d.neo4jPassword,
    neo4jDatabase: d.neo4jDatabase,
    redisUrl: d.redisUrl,
    sweepIntervalMs: d.sweepIntervalMs,
    auditSecret: d.auditSecret,
    jwtSecret: d.jwtSecret,
    jwksUrl: d.jwksUrl,
    jwtIssuer: d.jwtIssuer,
    jwtAudience: d.jwtAudience,
    corsOrigins: d.corsOrigins,
    metricsToken: d.metricsToken,
  };
}

/**
 * ioredis/BullMQ connection options from a redis:// URL, as BullMQ workers
 * need them (`maxRetriesPerRequest: null`: a worker waits for Redis to come
 * back). The producer side, `BullMqJobQueue`, makes its own fail-fast copy
 * of them (offline queue off, a finite retry count) from the same options.
 */
export function redisConnection(url: string): {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  tls?: object;
  maxRetriesPerRequest: null;
} {
  const u = new URL(url);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined;
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db !== undefined && Number.isInteger(db) ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

/** Which store to open, as the runtime takes it. */
export type StoreSelection =
  /** `path`: the database file; DATA_DIR/keepgraph.db when absent (restore works on copies beside it). */
  | { kind: 'sqlite'; path?: string }
  | { kind: 'neo4j'; uri: string; user?: string; password?: string; database?: string };
