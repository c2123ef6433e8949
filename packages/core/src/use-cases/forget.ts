// Deletion use-cases: forget (cascade + receipt), forget an owner, revoke a
// source, expire what is due, evict over the cap, and prove it is all gone.
// Forget and revoke-source have a dry run that lists the cascade's closure
// (derivedClosure, which forgetting a session shares) and deletes nothing.
// The store deletes the inbound DERIVED_FROM closure atomically; this module
// decides what to delete and queues re-derivation of survivors' summaries.
import { KeepGraphError, isKeepGraphError } from '../errors.ts';
import { DELETION_AUDIT_TYPE } from '../ports/cascade-audit.ts';
import type {
  CascadeReceipt,
  DeletionReason,
  DeletionReceipt,
  Trace,
} from '../ports/memory-store.ts';
import type { Authority, MemoryKind } from '../record.ts';
import { z } from 'zod';
import { IdListSchema, auditEvent, logServed, type Caller, type EngineDeps } from './deps.ts';
import { OWNER_ID, arg, optionalArg, type ParsedArgs } from './define.ts';
import { yieldToEventLoop } from '../event-loop.ts';
import { vectorsWithout } from '../jobs/turn-context.ts';

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
  // reading it (jobs/turn-context.ts): they are embedded again alone, before
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
export interface DeletionPreview {
  ownerId: string;
  reason: Extract<DeletionReason, 'forget' | 'revoke_source'>;
  dryRun: true;
  /** The cascade's roots: the ids asked for, or the memories naming the source. */
  requested: string[];
  /** Every memory that would go: the roots held and all derived from them, sorted. */
  memoryIds: string[];
  /** The first DRY_RUN_LISTED of them, roots first, to show what they say. */
  memories: {
    id: string;
    kind: MemoryKind;
    authority: Authority;
    text: string;
    /** False for a root, true for a memory that goes because it grew out of one. */
    derived: boolean;
  }[];
}

/**
 * The dry run of a cascade: the closure of the roots the owner holds, and
 * the first memories of it. Nothing is deleted and no deletion audited; the
 * memories it hands out are audited as a read, as a list page's are.
 * `not_found` when none of the roots is held, as the cascade would say.
 */
async function previewCascade(
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

/** `dryRun: true` lists what would go and deletes nothing. Strict: a misspelt dryRun must not delete. */
const DryRunSchema = z
  .strictObject({ dryRun: z.boolean().optional().describe('List what would go; delete nothing') })
  .prefault({});

export const ForgetArgs = [
  arg('ownerId', OWNER_ID),
  arg('ids', IdListSchema.min(1, 'name at least one memory id to forget')),
  optionalArg('options', DryRunSchema),
] as const;

export function forget(
  deps: EngineDeps,
  { ownerId, ids, options }: ParsedArgs<typeof ForgetArgs>,
  caller: Caller,
): Promise<DeletionReceipt | DeletionPreview> {
  const roots = [...new Set(ids)];
  if (options.dryRun) return previewCascade(deps, caller, ownerId, roots, 'forget');
  return cascade(deps, caller, ownerId, roots, 'forget');
}

export const OwnerArgs = [arg('ownerId', OWNER_ID)] as const;

/** Delete everything an owner has. Operators and the user themself may do it. */
export async function forgetOwner(
  deps: EngineDeps,
  { ownerId }: ParsedArgs<typeof OwnerArgs>,
  caller: Caller,
): Promise<DeletionReceipt> {
  const ids = await deps.store.listIds(ownerId);
  const receipts =
    ids.length > 0 ? [await cascade(deps, caller, ownerId, ids, 'forget_owner')] : [];
  // The session buffer holds the owner's words too, linked to a memory or
  // not, and the read log and pending jobs name the owner: all go with it,
  // and an owner with only sessions can be forgotten. (After the cascade: a
  // crash in between leaves what a second call deletes.)
  const residue = await deps.store.deleteOwnerResidue(ownerId);
  if (ids.length === 0 && residue.sessionMessages === 0)
    throw new KeepGraphError('not_found', `owner ${ownerId} has no memories and no sessions`);
  const at = deps.clock.now().toISOString();
  if (
    residue.sessionMessages +
      residue.readLogRows +
      residue.outboxJobs +
      residue.idempotencyRecords >
    0
  )
    await deps.store.appendAudit([
      auditEvent(caller, DELETION_AUDIT_TYPE.forget_owner, at, ownerId, {
        reason: 'forget_owner',
        details: {
          sessionMessagesDeleted: residue.sessionMessages,
          readLogRowsDeleted: residue.readLogRows,
          outboxJobsDeleted: residue.outboxJobs,
          idempotencyRecordsDeleted: residue.idempotencyRecords,
        },
      }),
    ]);
  const receipt = mergeReceipts(ownerId, 'forget_owner', receipts[0]?.at ?? at, receipts);
  receipt.sessionMessagesDeleted += residue.sessionMessages;
  return receipt;
}

const RevokeSourceSchema = z
  .strictObject({
    uri: z.string().trim().min(1).max(2048).optional(),
    tool: z.string().trim().min(1).max(512).optional(),
  })
  .refine((s) => s.uri !== undefined || s.tool !== undefined, {
    message: 'name a source uri or a tool to revoke',
  });

const VerifySchema = z.object({
  ids: IdListSchema,
  contentHashes: z
    .array(z.string().regex(/^[0-9a-f]{64}$/, 'content hashes are sha-256 hex'))
    .max(10_000)
    .optional(),
});

/** Delete every memory whose origin (own or inherited) names this URL, document or tool. */
export const RevokeSourceArgs = [
  arg('ownerId', OWNER_ID),
  arg('source', RevokeSourceSchema),
  optionalArg('options', DryRunSchema),
] as const;

export async function revokeSource(
  deps: EngineDeps,
  { ownerId, source, options }: ParsedArgs<typeof RevokeSourceArgs>,
  caller: Caller,
): Promise<DeletionReceipt | DeletionPreview> {
  const ids = await deps.store.findBySource(ownerId, source);
  if (options.dryRun) return previewCascade(deps, caller, ownerId, ids, 'revoke_source');
  if (ids.length === 0) {
    const at = deps.clock.now().toISOString();
    return mergeReceipts(ownerId, 'revoke_source', at, []);
  }
  return cascade(deps, caller, ownerId, ids, 'revoke_source', { source });
}

export interface ForgottenCheck {
  /** Nothing of the ids or hashes is left in this owner's stores, indexes and caches. */
  forgotten: boolean;
  traces: Trace[];
  /**
   * The owner whose data was searched: only theirs. Another owner's id reads
   * as forgotten here, since this call never looks at, or tells of, other
   * owners' data.
   */
  scope: { ownerId: string };
}

/** Look for the ids and content hashes everywhere the store keeps anything. */
export const VerifyArgs = [arg('ownerId', OWNER_ID), arg('what', VerifySchema)] as const;

export async function verifyForgotten(
  deps: EngineDeps,
  { ownerId, what }: ParsedArgs<typeof VerifyArgs>,
): Promise<ForgottenCheck> {
  if (what.ids.length === 0 && (what.contentHashes?.length ?? 0) === 0) {
    throw new KeepGraphError('invalid_input', 'name ids or content hashes to verify');
  }
  const traces = await deps.store.findTraces(ownerId, what.ids, what.contentHashes ?? []);
  return { forgotten: traces.length === 0, traces, scope: { ownerId } };
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

export interface ExpiryRun {
  purged: number;
  owners: number;
  /** Milliseconds between scheduled expiry and actual purge, per purged root. */
  lagsMs: number[];
  receipts: DeletionReceipt[];
}

/**
 * Purge memories whose expiry has passed, with the cascade. Records the
 * scheduled and actual purge times in the audit log so the on-schedule share
 * is measured. Retrieval already excludes them at query time.
 */
export const ExpireArgs = [
  optionalArg(
    'options',
    z.strictObject({ limit: z.number().int().min(1).max(100_000).optional() }).prefault({}),
  ),
] as const;

export async function expireDue(
  deps: EngineDeps,
  { options: opts }: ParsedArgs<typeof ExpireArgs>,
  caller: Caller,
): Promise<ExpiryRun> {
  const now = deps.clock.now();
  const due = await deps.store.dueForExpiry(now.toISOString(), opts.limit ?? 1000);
  const byOwner = new Map<string, { id: string; expiresAt: string }[]>();
  for (const d of due) byOwner.set(d.ownerId, [...(byOwner.get(d.ownerId) ?? []), d]);
  const receipts: DeletionReceipt[] = [];
  const lagsMs: number[] = [];
  for (const [ownerId, items] of byOwner) {
    const scheduled = Object.fromEntries(items.map((i) => [i.id, i.expiresAt]));
    try {
      receipts.push(
        await cascade(
          deps,
          caller,
          ownerId,
          items.map((i) => i.id),
          'expire',
          {
            scheduled,
            purgedAt: now.toISOString(),
          },
        ),
      );
      for (const i of items) lagsMs.push(now.getTime() - new Date(i.expiresAt).getTime());
    } catch (e) {
      // Another sweeper or a cascade from a source got there first.
      if (!(e instanceof KeepGraphError && e.code === 'not_found')) throw e;
    }
  }
  return { purged: lagsMs.length, owners: byOwner.size, lagsMs, receipts };
}
