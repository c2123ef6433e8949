// After an outage, through the public API of the recovered server: every
// memory of the case's owners is whole (its row, its full-text entry and
// on SQLite its vector, as verify-forgotten reports them, and an audit
// event naming it); every acknowledged write is there as sent; no write
// answered otherwise (503, no answer) is there; every acknowledged forget
// left no trace, and every other forget left its memory whole or took all
// of it.
import { operatorCall, type KeepGraphProcess } from '../../e2e/keepgraph-process.ts';
import { everyMemory } from '../../e2e/settle.ts';
import type { ForgetOutcome, WriteOutcome } from './load.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

/** Where each store reports a memory's parts (find-traces of each store). */
export const WHOLE: Record<'sqlite' | 'neo4j', readonly string[]> = {
  sqlite: ['memories', 'memory_fts_terms', 'memory_vectors'],
  neo4j: ['Memory', 'memory_text'],
};

export interface Wholeness {
  /** Memories held that are not whole: a part missing, or no audit event naming them. */
  partial: string[];
  /** Acknowledged writes missing, or not as sent. */
  lost: string[];
  /** Writes not acknowledged (503, no answer) that were kept all the same. */
  keptUnacknowledged: string[];
  /** Acknowledged forgets whose memory left a trace. */
  tracedAfterForget: string[];
  /** Forgets not acknowledged that took part of a memory. */
  halfForgotten: string[];
  /** Forgets not acknowledged that took the whole memory (allowed: a commit whose answer was lost). */
  forgottenUnacknowledged: number;
}

/** How many records the checks found half-written, in all. */
export function halfWritten(w: Wholeness): number {
  return (
    w.partial.length +
    w.lost.length +
    w.keptUnacknowledged.length +
    w.tracedAfterForget.length +
    w.halfForgotten.length
  );
}

/** Every memory the owner holds now: id → text. */
export async function allMemories(
  kg: KeepGraphProcess,
  owner: string,
): Promise<Map<string, string>> {
  const held = await everyMemory(kg, owner, { superseded: false });
  return new Map(held.map((m) => [m.id as string, m.text as string]));
}

/** Where each of `ids` has a trace (verify-forgotten). */
export async function traces(
  kg: KeepGraphProcess,
  owner: string,
  ids: readonly string[],
): Promise<Map<string, Set<string>>> {
  const parts = new Map<string, Set<string>>(ids.map((id) => [id, new Set()]));
  for (let i = 0; i < ids.length; i += 200) {
    const check: any = await operatorCall(kg, 'POST', `/owners/${owner}/verify-forgotten`, {
      ids: ids.slice(i, i + 200),
    });
    for (const t of check.traces) parts.get(t.id)?.add(t.where);
  }
  return parts;
}

/** Every memory id an audit event of the owner names. */
export async function audited(kg: KeepGraphProcess, owner: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let afterSeq: number | undefined;
  for (;;) {
    const page: any = await operatorCall(
      kg,
      'GET',
      `/audit?ownerId=${owner}&limit=1000${afterSeq !== undefined ? `&afterSeq=${afterSeq}` : ''}`,
    );
    for (const e of page.events) for (const id of e.memoryIds) ids.add(id);
    if (page.events.length < 1000) break;
    afterSeq = page.events.at(-1).seq;
  }
  return ids;
}

/** The checks above, over the owners of one case. */
export async function checkWhole(
  kg: KeepGraphProcess,
  store: 'sqlite' | 'neo4j',
  owners: readonly string[],
  writes: readonly WriteOutcome[],
  forgets: readonly ForgetOutcome[],
): Promise<Wholeness> {
  const w: Wholeness = {
    partial: [],
    lost: [],
    keptUnacknowledged: [],
    tracedAfterForget: [],
    halfForgotten: [],
    forgottenUnacknowledged: 0,
  };
  const whole = (p: Set<string> | undefined) => WHOLE[store].every((x) => p?.has(x));
  for (const owner of owners) {
    const held = await allMemories(kg, owner);
    const heldIds = [...held.keys()];
    const parts = await traces(kg, owner, heldIds);
    const inAudit = await audited(kg, owner);
    for (const id of heldIds) if (!whole(parts.get(id)) || !inAudit.has(id)) w.partial.push(id);

    const texts = new Set(held.values());
    for (const x of writes.filter((x) => x.owner === owner)) {
      if (x.status === 201) {
        if (x.id === undefined || held.get(x.id) !== x.text) w.lost.push(x.id ?? x.text);
      } else if (texts.has(x.text)) w.keptUnacknowledged.push(x.text);
    }

    const mine = forgets.filter((f) => f.owner === owner);
    const after = await traces(
      kg,
      owner,
      mine.map((f) => f.id),
    );
    for (const f of mine) {
      const left = after.get(f.id)!;
      if (f.status >= 200 && f.status < 300) {
        if (left.size > 0) w.tracedAfterForget.push(f.id);
      } else if (left.size === 0) w.forgottenUnacknowledged++;
      else if (!held.has(f.id) || !whole(left)) w.halfForgotten.push(f.id);
    }
  }
  return w;
}
