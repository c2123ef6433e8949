// API keys: their format, their hash and the check of a presented key.
// A key is `kgk_<id>_<secret>`: the prefix makes a leaked key recognisable
// (secret scanners, and our own policy gate, which refuses to store one);
// the id is public (lists, audit events, principals); the secret is 32
// random bytes. Stores keep only the SHA-256 of the whole key: the secret
// has 256 bits of entropy, so a fast hash cannot be brute-forced, and a
// database copy authenticates nobody.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord, ApiKeys } from '../ports/memory-store.ts';
import type { Credential } from './deps.ts';

export const API_KEY_PREFIX = 'kgk_';
const KEY_RE = /^kgk_([0-9a-f]{16})_[0-9A-Za-z_-]{43}$/;

/** A new key and its id (the key is shown once; only its hash is kept). */
export function newApiKey(): { id: string; key: string } {
  const id = randomBytes(8).toString('hex');
  return { id, key: `${API_KEY_PREFIX}${id}_${randomBytes(32).toString('base64url')}` };
}

export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The id inside a well-formed key, or null. */
export function apiKeyId(token: string): string | null {
  return KEY_RE.exec(token)?.[1] ?? null;
}

/** Whether a token has the shape of a KeepGraph key (decides between key and JWT). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** The principal a key's requests are recorded under. */
export function keyPrincipal(id: string): string {
  return `key:${id}`;
}

/** Whether a stored key is usable at `now`: not revoked, not expired. */
export function isKeyLive(k: ApiKeyRecord, now: Date): boolean {
  return k.revokedAt === null && (k.expiresAt === null || Date.parse(k.expiresAt) > now.getTime());
}

/**
 * The caller a presented key stands for, or null for anything that is not a
 * live key of this store: malformed, unknown, wrong secret, revoked or
 * expired all look the same to the presenter. The hashes are compared in
 * constant time. Read from the store on every request, so a revocation by
 * any process over it holds on the next one.
 */
export async function authenticateApiKey(
  keys: Pick<ApiKeys, 'getApiKey'>,
  token: string,
  now: Date,
): Promise<Credential | null> {
  const id = apiKeyId(token);
  if (id === null) return null;
  const stored = await keys.getApiKey(id);
  if (!stored) return null;
  const presented = Buffer.from(apiKeyHash(token), 'hex');
  const expected = Buffer.from(stored.keyHash, 'hex');
  if (expected.length !== presented.length || !timingSafeEqual(presented, expected)) return null;
  if (!isKeyLive(stored, now)) return null;
  return {
    role: stored.role,
    owners: stored.owners,
    principal: keyPrincipal(stored.id),
    expiresAt: stored.expiresAt,
  };
}
