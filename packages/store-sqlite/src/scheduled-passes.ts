// The scheduled passes' bookkeeping (migration 0009): which owners each
// schedule still has to visit. Writes make owners due and passes clear them,
// both inside the caller's write transaction.
import type { PassDue, WriteBatch } from '@keepgraph/core/ports';
import type { Statements } from './queries.ts';
import type { StoreContext } from './store-context.ts';

/** The owners due for `schedule`, in owner id order, paged. */
export function duePasses(
  ctx: StoreContext,
  schedule: string,
  opts: { after?: string; limit: number },
): PassDue[] {
  return ctx.st
    .sql(
      `SELECT schedule, owner_id AS ownerId, token FROM passes_due
        WHERE schedule = @schedule AND (@after IS NULL OR owner_id > @after)
        ORDER BY owner_id LIMIT @limit`,
    )
    .all({ schedule, after: opts.after ?? null, limit: opts.limit }) as PassDue[];
}

/** Make owners due (a fresh token) and clear passed ones whose token is unchanged. */
export function recordPasses(st: Statements, batch: WriteBatch): void {
  const due = st.sql(
    `INSERT INTO passes_due (schedule, owner_id, token) VALUES (?, ?, lower(hex(randomblob(8))))
       ON CONFLICT (schedule, owner_id) DO UPDATE SET token = excluded.token`,
  );
  for (const d of batch.due ?? []) due.run(d.schedule, d.ownerId);
  const passed = st.sql('DELETE FROM passes_due WHERE schedule = ? AND owner_id = ? AND token = ?');
  for (const p of batch.passed ?? []) passed.run(p.schedule, p.ownerId, p.token);
}

/** Forget-owner's residue: the owner's due passes. */
export function deleteOwnerPasses(st: Statements, ownerId: string): number {
  return st.sql('DELETE FROM passes_due WHERE owner_id = ?').run(ownerId).changes;
}
