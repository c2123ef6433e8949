// The job outbox (DESIGN.md, "Modes"): jobs recorded by write() and
// deleteCascade() inside their own transactions, read oldest first by the
// relay and deleted once the queue has them. Entries hold ids only and are
// owned by no memory: deleting memories or a whole owner leaves them, and
// the job finds out for itself that what it names is gone.
import { outboxEntry, type Job, type OutboxEntry } from '@keepgraph/core/ports';
import type { Statements } from './queries.ts';
import type { StoreContext } from './store-context.ts';

interface OutboxRow {
  job_id: string;
  name: string;
  owner_id: string;
  payload_json: string;
  recorded_at: string;
}

/** Record jobs (insert-or-ignore by job id). Call inside the caller's write transaction. */
export function recordJobs(st: Statements, jobs: readonly Job[], recordedAt: string): void {
  if (jobs.length === 0) return;
  const insert = st.file('insert-outbox-job');
  for (const j of jobs) {
    insert.run({
      job_id: j.id,
      name: j.name,
      owner_id: j.ownerId,
      payload_json: JSON.stringify(j.payload),
      recorded_at: recordedAt,
    });
  }
}

/** Pending jobs, oldest first, across owners: the relay's read. */
export function outboxPending(ctx: StoreContext, limit: number): OutboxEntry[] {
  const rows = ctx.st
    .sql(
      'SELECT job_id, name, owner_id, payload_json, recorded_at FROM outbox ORDER BY seq LIMIT ?',
    )
    .all(limit) as OutboxRow[];
  return rows.map((r) =>
    outboxEntry({
      id: r.job_id,
      name: r.name,
      ownerId: r.owner_id,
      payloadJson: r.payload_json,
      recordedAt: r.recorded_at,
    }),
  );
}

/** Delete relayed jobs by id, in one transaction; unknown ids match nothing. */
export function outboxAck(ctx: StoreContext, jobIds: readonly string[]): void {
  if (jobIds.length === 0) return;
  const run = ctx.db.transaction(() => {
    ctx.st
      .sql('DELETE FROM outbox WHERE job_id IN (SELECT value FROM json_each(?))')
      .run(JSON.stringify([...new Set(jobIds)]));
  });
  run.immediate();
}
