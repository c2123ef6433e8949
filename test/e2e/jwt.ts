// The e2e tests' identity provider: HS256 JWTs signed with a secret made for
// the run, the claims a valid token carries, and the environment that makes
// `keepgraph start` take them.
import { createHmac, randomBytes } from 'node:crypto';

export const JWT_SECRET = randomBytes(32).toString('hex');
export const ISSUER = 'https://idp.test/';
export const AUDIENCE = 'keepgraph-test';

/** What `keepgraph start` reads to take this provider's tokens. */
export const JWT_ENV = {
  KEEPGRAPH_JWT_SECRET: JWT_SECRET,
  KEEPGRAPH_JWT_ISSUER: ISSUER,
  KEEPGRAPH_JWT_AUDIENCE: AUDIENCE,
} as const;

/** Seconds since the epoch, as `exp` and `nbf` count. */
export const now = () => Math.floor(Date.now() / 1000);

export const b64 = (v: unknown) =>
  Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** A token over `payload`, signed with the run's secret unless told otherwise; alg 'none' leaves it unsigned. */
export function jwt(
  payload: Record<string, unknown>,
  opts: { secret?: string; alg?: string } = {},
): string {
  const head = b64({ alg: opts.alg ?? 'HS256', typ: 'JWT' });
  const body = b64(payload);
  if (opts.alg === 'none') return `${head}.${body}.`;
  const sig = createHmac('sha256', opts.secret ?? JWT_SECRET)
    .update(`${head}.${body}`)
    .digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** The claims of a token this provider issues `sub` for ten minutes, with a role and owners. */
export function validClaims(sub: string, role: string, owners: string[]) {
  return {
    iss: ISSUER,
    aud: AUDIENCE,
    sub,
    exp: now() + 600,
    keepgraph_role: role,
    keepgraph_owners: owners,
  };
}
