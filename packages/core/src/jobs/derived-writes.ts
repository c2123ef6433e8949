// How background jobs write what they derive: deterministic ids (a re-run
// of the same derivation names the same memory, so a retried job cannot
// write it twice), the write path's own gate and supersession rules, and
// one atomic batch with the job's bookkeeping.
import { createHash } from 'node:crypto';
import { embeddingText } from '../domain/indexed-text.ts';
import type { ParsedMemoryInput, Memory } from '../domain/record.ts';
import { MemoryInputSchema, STORED_TEXT_CONTROLS } from '../domain/record.ts';
import type { AuditEventInput } from '../domain/audit.ts';
import type { WriteBatch } from '../ports/memory-store.ts';
import { KeepGraphError, isKeepGraphError } from '../domain/errors.ts';
import { isLiveAt } from '../domain/liveness.ts';
import { ownerCap } from '../policy/index.ts';
import { evictOverCap } from '../services/cascade.ts';
import {
  auditRefusal,
  isAuditedRefusal,
  prepareWrite,
  writeDecidingAgain,
} from '../services/write.ts';
import { auditEvent, type Caller, type EngineDeps } from '../services/deps.ts';

/** A UUID-shaped id from a hash of what the derivation is made of. */
export function derivedId(parts: readonly string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface DerivedWrite {
  /** What the derivation is made of: its id is derivedId(idParts). */
  idParts: string[];
  input: ParsedMemoryInput;
  /** Other live memories this one replaces, besides what its key supersedes. */
  alsoSupersedes?: string[];
}

export interface DerivedWriteResult {
  written: Memory[];
  /** Ids that already existed: an earlier run of the same job wrote them. */
  alreadyThere: string[];
  /** Refused by the gate (audited), by id. */
  refused: { id: string; code: string }[];
  superseded: string[];
}

export const REFLECTION_CALLER: Caller = {
  role: 'agent',
  owners: 'all',
  principal: 'system:reflection',
};
export const COMPACTION_CALLER: Caller = {
  role: 'agent',
  owners: 'all',
  principal: 'system:compaction',
};

const CONTROLS = new RegExp(STORED_TEXT_CONTROLS.source, 'g');

/**
 * A space for each control character stored text may not hold. A derived
 * memory's text and entities are made from its sources', and sources
 * stored before those characters were refused may hold them: without this,
 * one such source would fail every reflection or compaction that reads it.
 */
function withoutControls(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(CONTROLS, ' ');
  if (Array.isArray(v)) return v.map(withoutControls);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutControls(x)]));
  return v;
}

/** Validate a derived memory input with the same schema callers go through. */
export function derivedInput(raw: unknown): ParsedMemoryInput {
  return MemoryInputSchema.parse(withoutControls(raw));
}

/**
 * The id a derivation gets: derivedId(idParts), unless a memory with that id
 * exists and is no longer live (an older version, superseded or past its
 * validity: the same derivation made again after a newer one was deleted),
 * then the next generation. The same store state always gives the same id.
 */
async function idFor(
  deps: EngineDeps,
  ownerId: string,
  parts: readonly string[],
  now: string,
): Promise<{ id: string; live: boolean }> {
  for (let generation = 1; ; generation++) {
    const id = derivedId(generation === 1 ? parts : [...parts, `generation ${generation}`]);
    const existing = await deps.store.getById(ownerId, id);
    if (!existing) return { id, live: false };
    if (isLiveAt(existing, now)) return { id, live: true };
  }
}

/**
 * Prepare and write derived memories in one batch together with `extra`
 * (reflected marks, audit). Refusals by the gate are audited and skipped;
 * a derivation already held live is skipped (idempotent re-runs).
 */
export async function writeDerived(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  items: readonly DerivedWrite[],
  extra: Pick<WriteBatch, 'reflected'> & { audit?: AuditEventInput[] } = {},
): Promise<DerivedWriteResult> {
  const now = deps.clock.now();
  const result: DerivedWriteResult = { written: [], alreadyThere: [], refused: [], superseded: [] };
  const at = now.toISOString();
  const prepareOne = async (item: DerivedWrite, id: string) => {
    const p = await prepareWrite({ ...deps, newId: () => id }, caller, ownerId, item.input, now);
    const others = (item.alsoSupersedes ?? []).filter((o) => !p.supersede.some((s) => s.id === o));
    if (others.length > 0) {
      p.supersede.push(...others.map((o) => ({ ownerId, id: o, by: id, at })));
      p.audit.push(
        auditEvent(caller, 'supersede', at, ownerId, {
          memoryIds: others,
          reason: 'rederived',
          details: { by: id },
        }),
      );
    }
    return p;
  };
  const chosen: { item: DerivedWrite; id: string }[] = [];
  let prepared: Awaited<ReturnType<typeof prepareWrite>>[] = [];
  for (const item of items) {
    const { id, live } = await idFor(deps, ownerId, item.idParts, at);
    if (live) {
      result.alreadyThere.push(id);
      continue;
    }
    try {
      prepared.push(await prepareOne(item, id));
      chosen.push({ item, id });
    } catch (e) {
      if (!isKeepGraphError(e)) throw e;
      if (isAuditedRefusal(e)) await auditRefusal(deps, caller, ownerId, item.input.text, e);
      result.refused.push({ id, code: e.code });
    }
  }
  const vectors = prepared.length
    ? await deps.embedder.embed(
        prepared.map((p) => embeddingText(p.memory)),
        'document',
      )
    : [];
  const hasBookkeeping = (extra.reflected?.length ?? 0) > 0 || (extra.audit?.length ?? 0) > 0;
  const writes = prepared.length > 0 || hasBookkeeping;
  if (writes) {
    await writeDecidingAgain(deps, async (attempt) => {
      // A user's write of one of these keys won the race: decide supersession again.
      if (attempt > 0) prepared = await Promise.all(chosen.map((c) => prepareOne(c.item, c.id)));
      try {
        await deps.store.write({
          memories: prepared.map((p, i) => ({ memory: p.memory, embedding: vectors[i] ?? null })),
          supersede: prepared.flatMap((p) => p.supersede),
          sessionMessages: [],
          audit: [...prepared.flatMap((p) => p.audit), ...(extra.audit ?? [])],
          ...(extra.reflected ? { reflected: extra.reflected } : {}),
          keys: prepared.flatMap((p) => p.keys),
        });
      } catch (e) {
        throw await sourceDeletedMeanwhile(deps, ownerId, e);
      }
    });
    result.written = prepared.map((p) => p.memory);
    result.superseded = prepared.flatMap((p) => p.supersede.map((s) => s.id));
  }
  // The cap holds for what jobs derive as for what callers write (an
  // owner's last reflection left it over the cap until its next write),
  // and again on a retry whose write committed before its eviction failed.
  if (writes || result.alreadyThere.length > 0)
    await evictOverCap(deps, caller, ownerId, ownerCap(deps.policy));
  return result;
}

/**
 * The store refuses a derived memory whose source the owner does not have
 * (`invalid_input`, naming the source). For a job that read its sources
 * and then lost one to a forget running beside it, that is a race, not bad
 * input: `conflict` (reason `source_deleted`), which the job runners retry
 * on the settled state, where the deleted memory is no longer read. As
 * `invalid_input` the job failed for good and its derivation was never made.
 * Returns the error to throw.
 */
async function sourceDeletedMeanwhile(
  deps: EngineDeps,
  ownerId: string,
  e: unknown,
): Promise<unknown> {
  if (!isKeepGraphError(e) || e.code !== 'invalid_input') return e;
  const sourceId = e.details?.['sourceId'];
  if (typeof sourceId !== 'string' || (await deps.store.getById(ownerId, sourceId))) return e;
  const conflict = new KeepGraphError(
    'conflict',
    'a source of this derivation was deleted while it was written; it is derived again from what is left',
    { reason: 'source_deleted', sourceId },
  );
  (conflict as Error).cause = e;
  return conflict;
}

/**
 * The vectors of these memories: the stored ones where they come from the
 * current model, freshly embedded otherwise (stored without one, or by a
 * model since replaced).
 */
export async function vectorsOf(
  deps: EngineDeps,
  ownerId: string,
  memories: readonly Memory[],
): Promise<Map<string, Float32Array>> {
  const current = memories.filter((m) => m.embeddingModel === deps.embedder.modelId);
  const out = new Map(
    (
      await deps.store.getEmbeddings(
        ownerId,
        current.map((m) => m.id),
      )
    ).map((e) => [e.id, e.embedding]),
  );
  const missing = memories.filter((m) => !out.has(m.id));
  if (missing.length > 0) {
    const fresh = await deps.embedder.embed(missing.map(embeddingText), 'document');
    missing.forEach((m, i) => out.set(m.id, fresh[i]!));
  }
  return out;
}
