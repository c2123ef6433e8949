// API keys (the ApiKeys concern): one row each, the key's hash and never the
// key; each change in one transaction with its audit event.
import type { AuditEventInput, Role } from '@keepgraph/core';
import type { ApiKeyRecord } from '@keepgraph/core/ports';
import { appendAuditEvents } from './audit-log.ts';
import type { StoreContext } from './store-context.ts';

interface KeyRow {
  id: string;
  name: string;
  role: string;
  owners_json: string;
  key_hash: string;
  created_at: string;
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
}

function toRecord(r: KeyRow): ApiKeyRecord {
  const owners = JSON.parse(r.owners_json) as 'all' | string[];
  return {
    id: r.id,
    name: r.name,
    role: r.role as Role,
    owners,
    keyHash: r.key_hash,
    createdAt: r.created_at,
    createdBy: r.created_by,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
  };
}

export function saveApiKey(ctx: StoreContext, k: ApiKeyRecord, audit: AuditEventInput): void {
  ctx.db
    .transaction(() => {
      ctx.st
        .sql(
          `INSERT INTO api_keys (id, name, role, owners_json, key_hash, created_at, created_by, expires_at, revoked_at)
           VALUES (@id, @name, @role, @owners_json, @key_hash, @created_at, @created_by, @expires_at, @revoked_at)`,
        )
        .run({
          id: k.id,
          name: k.name,
          role: k.role,
          owners_json: JSON.stringify(k.owners),
          key_hash: k.keyHash,
          created_at: k.createdAt,
          created_by: k.createdBy,
          expires_at: k.expiresAt,
          revoked_at: k.revokedAt,
        });
      appendAuditEvents(ctx, [audit]);
    })
    .immediate();
}

export function getApiKey(ctx: StoreContext, id: string): ApiKeyRecord | null {
  const r = ctx.st.sql('SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
  return r ? toRecord(r) : null;
}

export function listApiKeys(ctx: StoreContext): ApiKeyRecord[] {
  return (ctx.st.sql('SELECT * FROM api_keys ORDER BY created_at, id').all() as KeyRow[]).map(
    toRecord,
  );
}

export function revokeApiKey(
  ctx: StoreContext,
  id: string,
  revokedAt: string,
  audit: AuditEventInput,
): boolean {
  return ctx.db
    .transaction(() => {
      const r = ctx.st
        .sql('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
        .run(revokedAt, id);
      if (r.changes === 0) return false;
      appendAuditEvents(ctx, [audit]);
      return true;
    })
    .immediate();
}
