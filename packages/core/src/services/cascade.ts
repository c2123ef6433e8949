// The cascade (invariant 1): a memory and everything derived from it go
// together, with their audit events, in one transaction or in steps deepest
// first; its dry run; and eviction over the owner's cap, which deletes
// through it. forget, revoke, expiry, forgetting a session, correct and
// restore call the cascade; the writes (use-cases and derived) evict.
import { z } from 'zod';
import { KeepGraphError, isKeepGraphError } from '../domain/errors.ts';
import { DELETION_AUDIT_TYPE } from '../ports/cascade-audit.ts';
import type { CascadeReceipt, DeletionReason, DeletionReceipt } from '../ports/memory-store.ts';
import { AUTHORITIES, MEMORY_KINDS } from '../domain/record.ts';
import { auditEvent, logServed, type Caller, type EngineDeps } from './deps.ts';
import { yieldToEventLoop } from '../domain/event-loop.ts';
import { vectorsWithout } from './turn-context.ts';

/** Merge receipts of several cascades into one (forgetOwner, expiry, revoke). */
export function mergeReceipts(
  ownerId: string,
  reason: DeletionReason,
  at: string,
  rs: DeletionReceipt[],
): DeletionReceipt {
  const out: DeletionReceipt = {
    ownerId,
    reason,
    requested: [],
    deletedMemoryIds: [],
    deletedContentHashes: [],
    embeddingsDeleted: 0,
    fullTextEntriesDeleted: 0,
    relationEdgesDeleted: 0,
    entitiesDeleted: 0,
    sessionMessagesDeleted: 0,
    rederive: [],
    at,
  };
  for (const r of rs) {
    out.requested.push(...r.requested);
    out.deletedMemoryIds.push(...r.deletedMemoryIds);
    out.deletedContentHashes.push(...r.deletedContentHashes);
    out.embeddingsDeleted += r.embeddingsDeleted;
    out.fullTextEntriesDeleted += r.fullTextEntriesDeleted;
    out.relationEdgesDeleted += r.relationEdgesDeleted;
    out.entitiesDeleted += r.entitiesDeleted;
    out.sessionMessagesDeleted += r.sessionMessagesDeleted;
    out.rederive.push(...r.rederive);
  }
  return out;
}

/** The receipt a caller gets from a store's cascade. */
export function toDeletionReceipt(r: CascadeReceipt): DeletionReceipt {
  return {
    ...r,
    rederive: r.rederive.map(({ survivingSources, ...rest }) => ({
      ...rest,
      survivingSourceCount: survivingSources.length,
    })),
  };
}

/**
 * Run one cascade with its audit event and queue re-derivation jobs. The
 * event's `details.durationMs` is the time from here to the store's
 * commit, on the engine's clock (the deletion-propagation KPI).
 */
export async function cascade(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  rootIds: string[],
  reason: DeletionReason,
  details: Record<string, unknown> = {},
): Promise<DeletionReceipt> {
  const started = deps.clock.now();
  const at = started.toISOString();
  const elapsedMs = () => deps.clock.now().getTime() - started.getTime();
  const closure = await walkClosure(deps, ownerId, rootIds);
  // With turnContext, the turns after what goes may have been embedded
  // reading it (services/turn-context.ts): they are embedded again alone, before
  // anything is deleted (an embedder that fails deletes nothing), and take
  // those vectors once it is. Without it, forgetting needs no embedder.
  // Forgetting an owner leaves no turn after anything.
  const alone =
    deps.policy.background.reflection.turnContext && reason !== 'forget_owner'
      ? await vectorsWithout(deps, ownerId, closure.members)
      : [];
  let receipt: DeletionReceipt;
  if (closure.members.size <= CASCADE_STEP) {
    const one = await deps.store.deleteCascade({
      ownerId,
      rootIds,
      reason,
      at,
      audit: [auditEvent(caller, DELETION_AUDIT_TYPE[reason], at, ownerId, { reason, details })],
      elapsedMs,
    });
    receipt = toDeletionReceipt(one);
  } else {
    receipt = await cascadeInSteps(
      deps,
      caller,
      { ownerId, rootIds, reason, details, at },
      deepestFirst(closure),
      elapsedMs,
    );
  }
  if (alone.length > 0) await deps.store.replaceEmbeddings(ownerId, alone);
  // Invariant 7: a derived memory that lost a source but has survivors is
  // rebuilt from them by a `rederive` job, which the store recorded in its
  // outbox in the cascade's own transaction (rederiveJob).
  // Observed here, not from results: an eviction inside a write is in none.
  deps.observe?.({ type: 'cascade', reason, deletedMemories: receipt.deletedMemoryIds.length });
  return receipt;
}

/**
 * The most memories one store transaction of a cascade deletes. A wider
 * closure (fan-in has no limit: any number of memories may grow out of one)
 * is deleted in steps of at most this many, with a turn of the event loop
 * between them, so one forget cannot hold the store and every other
 * request for seconds (invariant 13). At this size a SQLite step takes
 * tens of milliseconds; most of it is FTS5 applying the step's full-text
 * deletions, which grows with the owner's postings (bench/README, abuse).
 */
export const CASCADE_STEP = 200;

/** A cascade's closure: the roots and every memory derived from them, with the edges between. */
interface Closure {
  members: Set<string>;
  /** Source to the memories derived directly from it. */
  children: Map<string, string[]>;
  /** How many of each derived member's sources are members too. */
  sourcesIn: Map<string, number>;
}

/**
 * Walk the inbound DERIVED_FROM closure of `roots`, level by level. Roots
 * the owner does not hold are kept (the store finds nothing for them).
 */
async function walkClosure(
  deps: EngineDeps,
  ownerId: string,
  roots: readonly string[],
): Promise<Closure> {
  const members = new Set(roots);
  const children = new Map<string, string[]>();
  const sourcesIn = new Map<string, number>();
  let frontier = [...members];
  while (frontier.length > 0) {
    const edges = await deps.store.derivedFrom(ownerId, frontier);
    const next: string[] = [];
    for (const e of edges) {
      const siblings = children.get(e.source);
      if (siblings) siblings.push(e.child);
      else children.set(e.source, [e.child]);
      sourcesIn.set(e.child, (sourcesIn.get(e.child) ?? 0) + 1);
      if (!members.has(e.child)) {
        members.add(e.child);
        next.push(e.child);
      }
    }
    frontier = next;
  }
  return { members, children, sourcesIn };
}

/**
 * The closure with each memory after every memory derived from it:
 * deleting in this order, a step never leaves a derived memory whose
 * source is gone, and each step's own closure is just its ids.
 */
function deepestFirst({ members, children, sourcesIn }: Closure): string[] {
  // Sources before what grew out of them (Kahn's order), then reversed.
  const order: string[] = [];
  const ready = [...members].filter((id) => !sourcesIn.has(id));
  const waiting = new Map(sourcesIn);
  while (ready.length > 0) {
    const id = ready.pop()!;
    order.push(id);
    for (const c of children.get(id) ?? []) {
      const left = waiting.get(c)! - 1;
      waiting.set(c, left);
      if (left === 0) ready.push(c);
    }
  }
  // A cycle (the stores allow none, but a closure must end) goes last, whole.
  const placed = new Set(order);
  return [...order.reverse(), ...[...members].filter((id) => !placed.has(id))];
}

/** A wide cascade as steps of CASCADE_STEP memories, deepest first; one receipt for all. */
async function cascadeInSteps(
  deps: EngineDeps,
  caller: Caller,
  c: {
    ownerId: string;
    rootIds: string[];
    reason: DeletionReason;
    details: Record<string, unknown>;
    at: string;
  },
  order: string[],
  elapsedMs: () => number,
): Promise<DeletionReceipt> {
  const steps = Math.ceil(order.length / CASCADE_STEP);
  const receipts: CascadeReceipt[] = [];
  for (let i = 0; i < steps; i += 1) {
    const ids = order.slice(i * CASCADE_STEP, (i + 1) * CASCADE_STEP);
    try {
      receipts.push(
        await deps.store.deleteCascade({
          ownerId: c.ownerId,
          rootIds: ids,
          reason: c.reason,
          at: c.at,
          audit: [
            auditEvent(caller, DELETION_AUDIT_TYPE[c.reason], c.at, c.ownerId, {
              reason: c.reason,
              details: { ...c.details, step: i + 1, of: steps },
            }),
          ],
          elapsedMs,
          step: { requestedRoots: c.rootIds, deletedByCascade: order },
        }),
      );
    } catch (e) {
      // A step whose memories another request deleted meanwhile has nothing to do.
      if (!isKeepGraphError(e) || e.code !== 'not_found') throw e;
    }
    await yieldToEventLoop();
  }
  if (receipts.length === 0)
    throw new KeepGraphError('not_found', 'none of these memories exists for this owner', {
      requested: c.rootIds.length,
    });
  const merged = mergeReceipts(c.ownerId, c.reason, c.at, receipts.map(toDeletionReceipt));
  // One cascade: its own roots, and each hash once however the steps fell.
  return {
    ...merged,
    requested: [...c.rootIds],
    deletedContentHashes: [...new Set(merged.deletedContentHashes)],
  };
}

/** The roots and every memory derived from them, transitively (the cascade's closure), sorted. */
export async function derivedClosure(
  deps: EngineDeps,
  ownerId: string,
  roots: readonly string[],
): Promise<string[]> {
  return [...(await walkClosure(deps, ownerId, roots)).members].sort();
}

/** A dry run's memories are listed up to this many (memoryIds names them all). */
export const DRY_RUN_LISTED = 500;

/** What a cascade would delete, and nothing deleted: forget's and revokeSource's dry run. */
export const DeletionPreviewSchema = z
  .object({
    ownerId: z.string(),
    reason: z.enum(['forget', 'revoke_source'] satisfies DeletionReason[]),
    dryRun: z.literal(true),
    /** The cascade's roots: the ids asked for, or the memories naming the source. */
    requested: z
      .array(z.string())
      .describe('The roots: the ids asked for, or the memories naming the source'),
    /** Every memory that would go: the roots held and all derived from them, sorted. */
    memoryIds: z
      .array(z.string())
      .describe('Every memory that would go: the roots held and all derived from them, sorted'),
    /** The first DRY_RUN_LISTED of them, roots first, to show what they say. */
    memories: z
      .array(
        z.object({
          id: z.string(),
          kind: z.enum(MEMORY_KINDS),
          authority: z.enum(AUTHORITIES),
          text: z.string(),
          /** False for a root, true for a memory that goes because it grew out of one. */
          derived: z.boolean().describe('False for a root'),
        }),
      )
      .describe('The first 500 of them, roots first'),
  })
  .describe('A dry run: what the cascade would delete; nothing was deleted or audited');
export type DeletionPreview = z.output<typeof DeletionPreviewSchema>;

/**
 * The dry run of a cascade: the closure of the roots the owner holds, and
 * the first memories of it. Nothing is deleted and no deletion audited; the
 * memories it hands out are audited as a read, as a list page's are.
 * `not_found` when none of the roots is held, as the cascade would say.
 */
export async function previewCascade(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  requested: string[],
  reason: DeletionPreview['reason'],
): Promise<DeletionPreview> {
  const byId = new Map((await deps.store.getByIds(ownerId, requested)).map((m) => [m.id, m]));
  const roots = requested.filter((id) => byId.has(id));
  if (roots.length === 0 && requested.length > 0)
    throw new KeepGraphError('not_found', 'none of these memories exists for this owner', {
      requested: requested.length,
    });
  const memoryIds = await derivedClosure(deps, ownerId, roots);
  const rootSet = new Set(roots);
  const listed = [...roots, ...memoryIds.filter((id) => !rootSet.has(id))].slice(0, DRY_RUN_LISTED);
  for (const m of await deps.store.getByIds(
    ownerId,
    listed.filter((id) => !byId.has(id)),
  ))
    byId.set(m.id, m);
  const memories = listed.flatMap((id) => {
    const m = byId.get(id);
    return m
      ? [{ id, kind: m.kind, authority: m.authority, text: m.text, derived: !rootSet.has(id) }]
      : [];
  });
  await logServed(
    deps,
    caller,
    ownerId,
    memories.map((m) => m.id),
    { details: { dryRun: reason } },
  );
  return { ownerId, reason, dryRun: true, requested, memoryIds, memories };
}

/** Invariant 10: over the cap, the lowest-value memories go through the cascade. */
export async function evictOverCap(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  cap: number,
): Promise<DeletionReceipt | null> {
  // Writers of one owner may evict at once and pick the same victims: one
  // cascade takes them, the other finds them gone (not_found) and looks again.
  for (let round = 0; round < 10; round++) {
    const count = await deps.store.countMemories(ownerId);
    if (count <= cap) return null;
    const victims = await deps.store.lowestValue(ownerId, count - cap);
    if (victims.length === 0) return null;
    try {
      return await cascade(deps, caller, ownerId, victims, 'cap', { cap, count });
    } catch (e) {
      if (!(isKeepGraphError(e) && e.code === 'not_found')) throw e;
    }
  }
  return null;
}
