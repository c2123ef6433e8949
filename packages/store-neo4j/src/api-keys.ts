// API keys (the ApiKeys concern): one (:ApiKey) node each, the key's hash
// and never the key; each change in one write transaction with its audit
// event.
import type { AuditEventInput, Role } from '@keepgraph/core';
import type { ApiKeyRecord } from '@keepgraph/core/ports';
import { appendAuditEvents } from './audit-log.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite, readRows, rows } from './transactions.ts';

interface KeyProps {
  id: string;
  name: string;
  role: string;
  owners: string;
  keyHash: string;
  createdAt: string;
  createdBy: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

function toRecord(k: KeyProps): ApiKeyRecord {
  return {
    id: k.id,
    name: k.name,
    role: k.role as Role,
    owners: JSON.parse(k.owners) as 'all' | string[],
    keyHash: k.keyHash,
    createdAt: k.createdAt,
    createdBy: k.createdBy,
    expiresAt: k.expiresAt ?? null,
    revokedAt: k.revokedAt ?? null,
  };
}

export async function saveApiKey(
  ctx: StoreContext,
  k: ApiKeyRecord,
  audit: AuditEventInput,
): Promise<void> {
  await inWrite(ctx, async (tx) => {
    // CREATE, not MERGE: an id already present fails the unique constraint (conflict).
    await tx.run('CREATE (k:ApiKey) SET k = $k', {
      k: { ...k, owners: JSON.stringify(k.owners) },
    });
    await appendAuditEvents(tx, ctx.rules, [audit]);
  });
}

export async function getApiKey(ctx: StoreContext, id: string): Promise<ApiKeyRecord | null> {
  const [r] = await readRows<{ k: KeyProps }>(
    ctx,
    'MATCH (k:ApiKey {id: $id}) RETURN k {.*} AS k',
    { id },
  );
  return r ? toRecord(r.k) : null;
}

export async function listApiKeys(ctx: StoreContext): Promise<ApiKeyRecord[]> {
  const found = await readRows<{ k: KeyProps }>(
    ctx,
    'MATCH (k:ApiKey) RETURN k {.*} AS k ORDER BY k.createdAt, k.id',
    {},
  );
  return found.map((r) => toRecord(r.k));
}

export async function revokeApiKey(
  ctx: StoreContext,
  id: string,
  revokedAt: string,
  audit: AuditEventInput,
): Promise<boolean> {
  return inWrite(ctx, async (tx) => {
    const changed = rows<{ id: string }>(
      await tx.run(
        `MATCH (k:ApiKey {id: $id}) WHERE k.revokedAt IS NULL
         SET k.revokedAt = $revokedAt RETURN k.id AS id`,
        { id, revokedAt },
      ),
    );
    if (changed.length === 0) return false;
    await appendAuditEvents(tx, ctx.rules, [audit]);
    return true;
  });
}
