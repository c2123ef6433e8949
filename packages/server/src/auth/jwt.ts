// JWTs from an identity provider (jose): a shared HMAC secret or the
// provider's JWKS, the issuer and the audience always checked, the
// algorithms fixed by the key type (never the token's say, so `alg: none`
// and an HMAC token signed with a public key both fail). Claims name the
// role and the owners; the subject becomes the principal (jwtPrincipal).
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import { OwnerIdSchema, ROLES, type Credential } from '@keepgraph/core';

/** How a deployment's JWTs are checked. */
export interface JwtOptions {
  /** HMAC secret (HS256/384/512), or… */
  secret?: string;
  /** …the identity provider's JWKS (RS*, PS*, ES*, EdDSA). */
  jwksUrl?: string;
  issuer: string;
  audience: string;
  /** Claim holding the role (default `keepgraph_role`). */
  roleClaim?: string;
  /** Claim holding the owners: a list of owner ids, or "all" for an operator (default `keepgraph_owners`). */
  ownersClaim?: string;
}

/** Verify a token: its caller, or null when it does not authenticate (any reason). */
export type JwtVerifier = (token: string) => Promise<Credential | null>;

const HMAC_ALGS = ['HS256', 'HS384', 'HS512'];
const ASYMMETRIC_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'EdDSA',
];

const OwnersClaim = z.union([z.literal('all'), z.array(OwnerIdSchema).min(1).max(1000)]);

/** The longest `sub` kept as it is in a principal (callers' principals have at most 256 characters). */
export const JWT_SUB_KEPT_CHARS = 200;

/**
 * The principal of a token's subject: `jwt:<sub>`, or `jwt:sha256:<hex of
 * the sub's UTF-8>` for a sub longer than JWT_SUB_KEPT_CHARS. Two subs are
 * never one principal: a cut would make every sub sharing its first
 * characters one caller (one rate limit, one set of Idempotency-Key
 * answers). A short sub that itself starts with `sha256:` is hashed too,
 * or an identity provider that lets users pick their sub would let one
 * name the hash of another's.
 */
export function jwtPrincipal(sub: string): string {
  if (sub.length <= JWT_SUB_KEPT_CHARS && !sub.startsWith('sha256:')) return `jwt:${sub}`;
  return `jwt:sha256:${createHash('sha256').update(sub, 'utf8').digest('hex')}`;
}

function credentialOf(
  payload: JWTPayload,
  roleClaim: string,
  ownersClaim: string,
): Credential | null {
  const role = z.enum(ROLES).safeParse(payload[roleClaim]);
  const owners = OwnersClaim.safeParse(payload[ownersClaim]);
  if (!role.success || !owners.success || typeof payload.sub !== 'string' || payload.sub === '')
    return null;
  // A lone surrogate has no UTF-8 form: two such subs would hash alike.
  if (/\p{Cs}/u.test(payload.sub)) return null;
  // An operator acts on every owner, as with keys.
  if (role.data === 'operator' && owners.data !== 'all') return null;
  // And only an operator's token names every owner (README, JWTs). Unlike a
  // key, which an operator makes here and sees listed, a token's claims are
  // set in an identity provider: one mapping rule there must not be able
  // to give an analyst, a user or an agent every tenant. Wider scopes are
  // keys, or lists in the claim.
  if (role.data !== 'operator' && owners.data === 'all') return null;
  // `exp` is a required claim (jwtVerify checks it): seconds since the epoch.
  const exp = new Date(Number(payload.exp) * 1000);
  return {
    role: role.data,
    owners: owners.data,
    principal: jwtPrincipal(payload.sub),
    expiresAt: Number.isNaN(exp.getTime()) ? null : exp.toISOString(),
  };
}

export function jwtVerifier(opts: JwtOptions): JwtVerifier {
  const roleClaim = opts.roleClaim ?? 'keepgraph_role';
  const ownersClaim = opts.ownersClaim ?? 'keepgraph_owners';
  const checks = { issuer: opts.issuer, audience: opts.audience, requiredClaims: ['sub', 'exp'] };
  let verify: (token: string) => Promise<JWTPayload>;
  if (opts.secret !== undefined) {
    const key = new TextEncoder().encode(opts.secret);
    verify = async (t) => (await jwtVerify(t, key, { ...checks, algorithms: HMAC_ALGS })).payload;
  } else if (opts.jwksUrl !== undefined) {
    const jwks = createRemoteJWKSet(new URL(opts.jwksUrl));
    verify = async (t) =>
      (await jwtVerify(t, jwks, { ...checks, algorithms: ASYMMETRIC_ALGS })).payload;
  } else {
    throw new Error('JWT authentication needs a secret or a JWKS URL');
  }
  return async (token) => {
    try {
      return credentialOf(await verify(token), roleClaim, ownersClaim);
    } catch {
      // Expired, wrong issuer or audience, bad signature, malformed, JWKS
      // unreachable: the caller is not authenticated, whatever the reason.
      return null;
    }
  };
}
