// Idempotency records (the IdempotencyRecords concern): one row per (caller,
// Idempotency-Key), claimed in one IMMEDIATE transaction so that of many
// processes racing for a key exactly one inserts it. Scope and key arrive
// as core's keyed hashes, and the answer as core keeps it (KeptAnswer).
import type { IdempotencyRecord, KeptAnswer } from '@keepgraph/core/ports';
import type { StoreContext } from './store-context.ts';

interface Row {
  scope: string;
  key: string;
  owner_id: string | null;
  request_hash: string;
  created_at: string;
  expires_at: string;
  response_json: string | null;
  memory_ids_json: string;
  forgotten: number;
}

function toRecord(r: Row): IdempotencyRecord {
  return {
    scope: r.scope,
    key: r.key,
    ownerId: r.owner_id,
    requestHash: r.request_hash,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    response: r.response_json === null ? null : (JSON.parse(r.response_json) as never),
    memoryIds: JSON.parse(r.memory_ids_json) as string[],
    forgotten: r.forgotten === 1,
  };
}

export function claimIdempotency(
  ctx: StoreContext,
  rec: Omit<IdempotencyRecord, 'response' | 'memoryIds' | 'forgotten'>,
): IdempotencyRecord | null {
  return ctx.db
    .transaction(() => {
      // Expired answers are purged here (the expires index keeps it a range scan).
      ctx.st.sql('DELETE FROM idempotency WHERE expires_at <= ?').run(rec.createdAt);
      const held = ctx.st
        .sql('SELECT * FROM idempotency WHERE scope = ? AND key = ?')
        .get(rec.scope, rec.key) as Row | undefined;
      if (held) return toRecord(held);
      ctx.st
        .sql(
          `INSERT INTO idempotency (scope, key, owner_id, request_hash, created_at, expires_at)
           VALUES (@scope, @key, @ownerId, @requestHash, @createdAt, @expiresAt)`,
        )
        .run(rec);
      return null;
    })
    .immediate();
}

export function completeIdempotency(
  ctx: StoreContext,
  scope: string,
  key: string,
  response: KeptAnswer,
  memoryIds: readonly string[],
): void {
  ctx.st
    .sql(
      'UPDATE idempotency SET response_json = ?, memory_ids_json = ? WHERE scope = ? AND key = ?',
    )
    .run(JSON.stringify(response), JSON.stringify([...new Set(memoryIds)]), scope, key);
}

export function releaseIdempotency(
  ctx: StoreContext,
  scope: string,
  key: string,
  createdAt: string,
): void {
  ctx.st
    .sql(
      'DELETE FROM idempotency WHERE scope = ? AND key = ? AND created_at = ? AND response_json IS NULL',
    )
    .run(scope, key, createdAt);
}
