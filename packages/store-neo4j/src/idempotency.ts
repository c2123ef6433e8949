// Idempotency records (the IdempotencyRecords concern): one
// (:IdempotencyRecord) node per (caller, Idempotency-Key). A claim is a
// CREATE under the unique id constraint: of many concurrent claims one
// commits, the others fail the constraint and read the winner's record.
import { isKeepGraphError, type IdempotencyRecord } from '@keepgraph/core';
import { neo4jDriverError } from './neo4j-errors.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite, readRows } from './transactions.ts';

interface Props {
  scope: string;
  key: string;
  ownerId: string | null;
  requestHash: string;
  createdAt: string;
  expiresAt: string;
  response?: string | null;
  memoryIds?: string[];
  forgotten?: boolean;
}

/** The node id: scope and key joined by a character neither may hold. */
const recordId = (scope: string, key: string) => `${scope}\u0000${key}`;

function toRecord(p: Props): IdempotencyRecord {
  return {
    scope: p.scope,
    key: p.key,
    ownerId: p.ownerId ?? null,
    requestHash: p.requestHash,
    createdAt: p.createdAt,
    expiresAt: p.expiresAt,
    response: p.response ? (JSON.parse(p.response) as never) : null,
    memoryIds: p.memoryIds ?? [],
    forgotten: p.forgotten === true,
  };
}

async function held(ctx: StoreContext, scope: string, key: string, now: string) {
  const [r] = await readRows<{ r: Props }>(
    ctx,
    'MATCH (r:IdempotencyRecord {id: $id}) WHERE r.expiresAt > $now RETURN r {.*} AS r',
    { id: recordId(scope, key), now },
  );
  return r ? toRecord(r.r) : null;
}

export async function claimIdempotency(
  ctx: StoreContext,
  rec: Omit<IdempotencyRecord, 'response' | 'memoryIds' | 'forgotten'>,
): Promise<IdempotencyRecord | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await held(ctx, rec.scope, rec.key, rec.createdAt);
    if (existing) return existing;
    try {
      await inWrite(ctx, async (tx) => {
        // Expired answers are purged on the way (the expires index keeps it
        // a range scan), this key's first.
        await tx.run('MATCH (r:IdempotencyRecord {id: $id}) WHERE r.expiresAt <= $now DELETE r', {
          id: recordId(rec.scope, rec.key),
          now: rec.createdAt,
        });
        await tx.run(
          `MATCH (r:IdempotencyRecord) WHERE r.expiresAt <= $now
           WITH r LIMIT 1000 DELETE r`,
          { now: rec.createdAt },
        );
        await tx.run('CREATE (r:IdempotencyRecord) SET r = $r', {
          r: { ...rec, id: recordId(rec.scope, rec.key), memoryIds: [], forgotten: false },
        });
      });
      return null;
    } catch (e) {
      // Another claim of the same key committed first: read it.
      const mapped = isKeepGraphError(e) ? e : neo4jDriverError(e);
      if (mapped?.code !== 'conflict') throw e;
    }
  }
  const existing = await held(ctx, rec.scope, rec.key, rec.createdAt);
  if (existing) return existing;
  throw new Error('idempotency claim: the record was taken and released repeatedly');
}

export async function completeIdempotency(
  ctx: StoreContext,
  scope: string,
  key: string,
  response: { status: number; body: unknown },
  memoryIds: readonly string[],
): Promise<void> {
  await inWrite(ctx, (tx) =>
    tx.run(
      'MATCH (r:IdempotencyRecord {id: $id}) SET r.response = $response, r.memoryIds = $memoryIds',
      {
        id: recordId(scope, key),
        response: JSON.stringify(response),
        memoryIds: [...new Set(memoryIds)],
      },
    ),
  );
}

export async function releaseIdempotency(
  ctx: StoreContext,
  scope: string,
  key: string,
  createdAt: string,
): Promise<void> {
  await inWrite(ctx, (tx) =>
    tx.run(
      `MATCH (r:IdempotencyRecord {id: $id})
       WHERE r.response IS NULL AND r.createdAt = $createdAt DELETE r`,
      { id: recordId(scope, key), createdAt },
    ),
  );
}
