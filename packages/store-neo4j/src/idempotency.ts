// Idempotency records (the IdempotencyRecords concern): one
// (:IdempotencyRecord) node per (caller, Idempotency-Key). A claim is a
// MERGE under the unique id constraint: of many concurrent claims one
// finds the key free, the others read the winner's record. Scope and key
// arrive as core's keyed hashes, and the answer as core keeps it (KeptAnswer).
import type { IdempotencyRecord, KeptAnswer } from '@keepgraph/core/ports';
import type { StoreContext } from './store-context.ts';
import { inWrite } from './transactions.ts';

/** A record as claimed: no answer yet, no ids, not forgotten. */
type Claim = Omit<IdempotencyRecord, 'response' | 'memoryIds' | 'forgotten'>;

/** A node's properties: the claim, then the answer as a JSON string and its ids. */
interface Props extends Claim {
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

/** Expired records are purged at most this often per process, outside any claim. */
const PURGE_EVERY_MS = 60_000;
const lastPurge = new WeakMap<StoreContext, number>();

/** Delete up to 1,000 expired records (the expires index keeps it a range scan). */
async function purgeExpired(ctx: StoreContext, now: string): Promise<void> {
  const at = Date.now();
  if (at - (lastPurge.get(ctx) ?? 0) < PURGE_EVERY_MS) return;
  lastPurge.set(ctx, at);
  await inWrite(ctx, (tx) =>
    tx.run(
      `MATCH (r:IdempotencyRecord) WHERE r.expiresAt <= $now
       WITH r LIMIT 1000 DELETE r`,
      { now },
    ),
  );
}

export async function claimIdempotency(
  ctx: StoreContext,
  rec: Claim,
): Promise<IdempotencyRecord | null> {
  // Housekeeping in its own transaction, before the claim: if it fails,
  // nothing is claimed and the caller's 503 leaves no pending key behind.
  await purgeExpired(ctx, rec.createdAt);
  // One MERGE under the unique id constraint. A miss takes the key's index
  // entry exclusively at once, so parallel claims queue on it and exactly
  // one finds it free. (A MATCH of the key, then a CREATE, took the entry
  // shared first and then asked for it exclusively: 100 parallel repeats
  // of one key deadlocked one another until the driver's retries ran out.)
  // The id is never set again (that would take the entry's lock anew); an
  // expired record of this key is free and overwritten in place.
  const props = { ...rec, response: null, memoryIds: [], forgotten: false };
  const row = await inWrite(ctx, async (tx) => {
    const res = await tx.run(
      `MERGE (r:IdempotencyRecord {id: $id})
       WITH r, coalesce(r.expiresAt <= $now, true) AS free
       FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END | SET r += $props)
       RETURN free, r {.*} AS r`,
      { id: recordId(rec.scope, rec.key), now: rec.createdAt, props },
    );
    return res.records[0]!.toObject() as { free: boolean; r: Props };
  });
  return row.free ? null : toRecord(row.r);
}

export async function completeIdempotency(
  ctx: StoreContext,
  scope: string,
  key: string,
  response: KeptAnswer,
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
