// API keys, for operators: create (the key is returned once, only its hash
// is kept), list (never a key or a hash), revoke. Create and revoke are
// audit events, written in the same transaction as the key.
import { z } from 'zod';
import { apiKeyHash, isKeyLive, newApiKey } from '../services/api-keys.ts';
import { KeepGraphError } from '../domain/errors.ts';
import { parseDuration } from '../policy/duration.ts';
import { evaluateStoredFields, type StoredField } from '../policy/index.ts';
import type { ApiKeyRecord } from '../ports/memory-store.ts';
import { ROLES } from '../domain/record.ts';
import { auditEvent, type Caller, type EngineDeps } from '../services/deps.ts';
import type { ParsedArgs } from './define.ts';
import type { CreateKeyArgs, RevokeKeyArgs } from './keys-args.ts';

/** A key as lists show it: never the key or its hash. */
export const ApiKeyInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  owners: z.union([z.literal('all'), z.array(z.string())]),
  createdAt: z.string(),
  createdBy: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  /** Whether it authenticates now. */
  live: z.boolean(),
});
export type ApiKeyInfo = z.output<typeof ApiKeyInfoSchema>;

/** A created key: its info and, this once, the key. */
export const CreatedApiKeySchema = ApiKeyInfoSchema.extend({
  key: z.string().describe('The key: shown only in this answer; store it now'),
});
export type CreatedApiKey = z.output<typeof CreatedApiKeySchema>;

function info(k: ApiKeyRecord, now: Date): ApiKeyInfo {
  const { keyHash: _hash, ...rest } = k;
  return { ...rest, live: isKeyLive(k, now) };
}

/**
 * A key's name and owner ids are stored, listed and shown in the UI like
 * any field of a memory, so they pass the same gate (invariant 4): a
 * secret pasted as a name, or an email as an owner id, is refused with the
 * gate's code and audited by keyed hash only, never kept.
 */
async function gateKeyFields(
  deps: EngineDeps,
  input: ParsedArgs<typeof CreateKeyArgs>['input'],
  caller: Caller,
  at: string,
): Promise<void> {
  const fields: StoredField[] = [
    { path: 'name', value: input.name },
    ...(input.owners === 'all' ? [] : input.owners).map((value, i) => ({
      path: `owners[${i}]`,
      value,
    })),
  ];
  const refusal = await evaluateStoredFields(deps.policy, fields);
  if (!refusal) return;
  const refused = fields.find((f) => f.path === refusal.details.field)?.value ?? '';
  await deps.store.appendAudit([
    auditEvent(caller, 'refuse', at, null, {
      contentHashes: [deps.keyedHash(refused)],
      reason: refusal.code,
      details: { field: refusal.details.field, requestId: caller.requestId ?? null },
    }),
  ]);
  throw new KeepGraphError(refusal.code, refusal.message, refusal.details);
}

export async function createKey(
  deps: EngineDeps,
  { input }: ParsedArgs<typeof CreateKeyArgs>,
  caller: Caller,
): Promise<CreatedApiKey> {
  const now = deps.clock.now();
  await gateKeyFields(deps, input, caller, now.toISOString());
  const expiresAt =
    input.expiresIn === undefined
      ? null
      : new Date(now.getTime() + parseDuration(input.expiresIn) * 1000).toISOString();
  const { id, key } = newApiKey();
  const record: ApiKeyRecord = {
    id,
    name: input.name,
    role: input.role,
    owners: input.owners === 'all' ? 'all' : [...new Set(input.owners)],
    keyHash: apiKeyHash(key),
    createdAt: now.toISOString(),
    createdBy: caller.principal,
    expiresAt,
    revokedAt: null,
  };
  await deps.store.saveApiKey(
    record,
    auditEvent(caller, 'key_created', record.createdAt, null, {
      details: {
        keyId: id,
        role: record.role,
        owners: record.owners === 'all' ? 'all' : record.owners.length,
        expiresAt,
      },
    }),
  );
  return { ...info(record, now), key };
}

export async function listKeys(deps: EngineDeps): Promise<ApiKeyInfo[]> {
  const now = deps.clock.now();
  return (await deps.store.listApiKeys()).map((k) => info(k, now));
}

/** Revoke a key; revoking one already revoked answers its first revocation. */
export async function revokeKey(
  deps: EngineDeps,
  { id }: ParsedArgs<typeof RevokeKeyArgs>,
  caller: Caller,
): Promise<ApiKeyInfo> {
  const at = deps.clock.now().toISOString();
  await deps.store.revokeApiKey(
    id,
    at,
    auditEvent(caller, 'key_revoked', at, null, { details: { keyId: id } }),
  );
  const k = await deps.store.getApiKey(id);
  if (!k) throw new KeepGraphError('not_found', 'no API key has this id', { id });
  return info(k, deps.clock.now());
}
