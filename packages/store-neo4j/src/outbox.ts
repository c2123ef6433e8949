// The job outbox (DESIGN.md, "Modes"): jobs recorded by write() and
// deleteCascade() inside their own transactions as (:OutboxJob) nodes, read
// oldest first by the relay and deleted once the queue has them. Entries
// hold ids only and hang off no memory: deleting memories or a whole owner
// leaves them, and the job finds out for itself that what it names is gone.
import { outboxEntry, type Job, type OutboxEntry } from '@keepgraph/core/ports';
import { cypher } from './queries.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite, int, readRows } from './transactions.ts';
import type { Tx } from './transactions.ts';

/** Record jobs (insert-or-ignore by job id). Call inside the caller's write transaction. */
export async function recordJobs(tx: Tx, jobs: readonly Job[], recordedAt: string): Promise<void> {
  // The first of each id wins, as it would against an entry already pending.
  const byId = new Map<string, Job>();
  for (const j of jobs) if (!byId.has(j.id)) byId.set(j.id, j);
  const distinct = [...byId.values()];
  if (distinct.length === 0) return;
  await tx.run(cypher('insert-outbox-jobs'), {
    jobs: distinct.map((j) => ({
      id: j.id,
      name: j.name,
      ownerId: j.ownerId,
      payload: JSON.stringify(j.payload),
    })),
    recordedAt,
  });
}

export interface OutboxRow {
  id: string | null;
  name: string | null;
  ownerId: string | null;
  payload: string | null;
  recordedAt: string | null;
}

/** Pending jobs, oldest first, across owners: the relay's read. */
export async function outboxPending(ctx: StoreContext, limit: number): Promise<OutboxEntry[]> {
  // `seq >= 0` lets the planner read the seq index in order and stop at LIMIT.
  const found = await readRows<OutboxRow>(
    ctx,
    `MATCH (j:OutboxJob) WHERE j.seq >= 0
     RETURN j.id AS id, j.name AS name, j.ownerId AS ownerId, j.payload AS payload,
            j.recordedAt AS recordedAt
     ORDER BY j.seq LIMIT $limit`,
    { limit: int(limit) },
  );
  return pendingFrom(found);
}

/**
 * The entries of the rows read. Neo4j reads committed data row by row: an
 * entry acked (deleted) by a concurrent relay after MATCH found it comes back
 * with null properties. It is gone, so it is not pending; passing it on
 * handed the relay a job with no name.
 */
export function pendingFrom(rows: readonly OutboxRow[]): OutboxEntry[] {
  return rows.flatMap(({ id, name, ownerId, payload, recordedAt }) =>
    id === null || name === null || ownerId === null || payload === null || recordedAt === null
      ? []
      : [outboxEntry({ id, name, ownerId, payloadJson: payload, recordedAt })],
  );
}

/** Delete relayed jobs by id, in one transaction; unknown ids match nothing. */
export async function outboxAck(ctx: StoreContext, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await inWrite(ctx, (tx) =>
    tx.run('MATCH (j:OutboxJob) WHERE j.id IN $ids DELETE j', { ids: [...new Set(jobIds)] }),
  );
}
