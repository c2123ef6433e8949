// The scheduled passes' bookkeeping (migration 0009): which owners each
// schedule still has to visit, as (:PassDue) nodes. Writes make owners due
// and passes clear them, both inside the caller's write transaction.
import type { PassDue, WriteBatch } from '@keepgraph/core/ports';
import type { StoreContext } from './store-context.ts';
import { int, readRows } from './transactions.ts';
import type { Tx } from './transactions.ts';

/** The owners due for `schedule`, in owner id order, paged. */
export async function duePasses(
  ctx: StoreContext,
  schedule: string,
  opts: { after?: string; limit: number },
): Promise<PassDue[]> {
  return readRows<PassDue>(
    ctx,
    `MATCH (p:PassDue) WHERE p.schedule = $schedule AND ($after IS NULL OR p.ownerId > $after)
     RETURN p.schedule AS schedule, p.ownerId AS ownerId, p.token AS token
     ORDER BY ownerId LIMIT $limit`,
    { schedule, after: opts.after ?? null, limit: int(opts.limit) },
  );
}

/** Make owners due (a fresh token) and clear passed ones whose token is unchanged. */
export async function recordPasses(tx: Tx, batch: WriteBatch): Promise<void> {
  if (batch.due?.length)
    await tx.run(
      `UNWIND $due AS d
       MERGE (p:PassDue {id: d.schedule + '\\u0000' + d.ownerId})
       SET p.schedule = d.schedule, p.ownerId = d.ownerId, p.token = randomUUID()`,
      { due: batch.due.map((d) => ({ schedule: d.schedule, ownerId: d.ownerId })) },
    );
  if (batch.passed?.length)
    await tx.run(
      `UNWIND $passed AS d
       MATCH (p:PassDue {id: d.schedule + '\\u0000' + d.ownerId})
       WHERE p.token = d.token
       DELETE p`,
      {
        passed: batch.passed.map((d) => ({
          schedule: d.schedule,
          ownerId: d.ownerId,
          token: d.token,
        })),
      },
    );
}
