// What the store must hold after a fuzz run, from the answers alone: every
// memory an accepted (2xx) request wrote, less what accepted deletions
// removed (their receipts name every id) and what accepted writes
// superseded. `compareWithStore` then holds the export of each owner to it.
//
// Background jobs run as shipped (reflection, compaction, the expiry
// sweep): a store with its workers stopped is not what users run, and the
// jobs' writes racing the fuzz's deletions are part of what is tested.
// Their memories are told apart by their writer (`system:…`) and must
// rest, by DERIVED_FROM, on memories the run accepted (or on other such
// derived memories) and on none that a receipt named as deleted.
import type { UseCaseName } from '@keepgraph/core';

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON read by shape */

/** A memory as the store model knows it. */
export interface Known {
  id: string;
  ownerId: string;
  /** The text as the write's answer gave it (absent: the answer named only the id). */
  text?: string;
  /** When it expires: exact from an answer, or from the TTL asked for; absent: not within the run. */
  expiresAt?: { earliest: string; latest: string };
  /** The use-case that wrote it. */
  by: string;
}

/** What one accepted answer did to the store's memories. */
export interface Effect {
  created: Known[];
  /** Deleted (a receipt named them): never to be found again. */
  deleted: string[];
  /** Superseded or ended by a write: held no more, still stored. */
  superseded: string[];
}

const none = (): Effect => ({ created: [], deleted: [], superseded: [] });

/** The context an answer is read in: the owner from the URL (normalised), when it was sent. */
export interface AnswerContext {
  ownerId: string | null;
  sentAt: number;
  receivedAt: number;
  /** The TTLs asked for, per created id, for answers that name only ids (import lines, session messages). */
  ttlOf?: (id: string, index: number) => number | undefined;
}

function fromMemory(m: any, by: string): Known {
  return {
    id: m.id,
    ownerId: m.ownerId,
    text: m.text,
    expiresAt: { earliest: m.expiresAt, latest: m.expiresAt },
    by,
  };
}

function idOnly(id: string, ctx: AnswerContext, by: string, ttl: number | undefined): Known {
  return {
    id,
    ownerId: ctx.ownerId!,
    by,
    ...(ttl !== undefined && {
      expiresAt: {
        earliest: new Date(ctx.sentAt + ttl * 1000).toISOString(),
        latest: new Date(ctx.receivedAt + ttl * 1000).toISOString(),
      },
    }),
  };
}

/** A written memory and what it replaced. */
function written(m: any, by: string): Effect {
  return {
    created: [fromMemory(m, by)],
    deleted: [],
    superseded: m.supersedes ? [m.supersedes] : [],
  };
}

/**
 * What each use-case's accepted answer did. Use-cases missing here write
 * no memory (reads, keys, the session buffer); `effectOf` reads any
 * unlisted answer generically too, so a new writing use-case is not missed.
 */
const EFFECTS: Partial<Record<UseCaseName, (a: any, ctx: AnswerContext) => Effect>> = {
  remember: (a) => ({
    ...written(a.memory, 'remember'),
    superseded: [a.superseded, a.memory.supersedes].filter(Boolean),
  }),
  putByKey: (a) => ({
    ...written(a.memory, 'putByKey'),
    superseded: [a.superseded, a.memory.supersedes].filter(Boolean),
  }),
  rememberMany: (a) => {
    const e = none();
    for (const m of a.stored) {
      const w = written(m, 'rememberMany');
      e.created.push(...w.created);
      e.superseded.push(...w.superseded);
    }
    return e;
  },
  importMemories: (a, ctx) => ({
    ...none(),
    created: a.stored.map((s: any) =>
      idOnly(s.id, ctx, 'importMemories', ctx.ttlOf?.(s.id, s.line)),
    ),
  }),
  correct: (a) => ({
    created: [fromMemory(a.memory, 'correct')],
    deleted: a.receipt?.deletedMemoryIds ?? [],
    superseded: [
      ...(a.superseded ? [a.corrected] : []),
      ...(a.memory.supersedes ? [a.memory.supersedes] : []),
    ],
  }),
  sessionAppend: (a, ctx) => ({
    ...none(),
    created: a.rememberedIds.map((id: string, i: number) =>
      idOnly(id, ctx, 'sessionAppend', ctx.ttlOf?.(id, i)),
    ),
  }),
  forget: (a) => ({ ...none(), deleted: a.dryRun ? [] : a.deletedMemoryIds }),
  forgetOwner: (a) => ({ ...none(), deleted: a.deletedMemoryIds }),
  revokeSource: (a) => ({ ...none(), deleted: a.dryRun ? [] : a.deletedMemoryIds }),
  forgetSession: (a) => ({ ...none(), deleted: a.dryRun ? [] : a.memoryIds }),
  expireDue: (a) => ({ ...none(), deleted: a.receipts.flatMap((r: any) => r.deletedMemoryIds) }),
};

/** Use-cases that change no memory: their answers are not read for effects. */
const NO_MEMORY_EFFECT = new Set<string>(
  (
    'recall why get lineage neighbours entityGraph getByKey readLog listMemories ' +
    'exportPage verifyForgotten listSessions sessionContext readSession deleteSession ' +
    'auditList auditVerify kpis createKey listKeys revokeKey whoami listOwners'
  ).split(' '),
);

/**
 * Memories and deletion receipts anywhere in an answer, for a use-case this
 * file does not know: a memory-shaped object is taken as written, a
 * `deletedMemoryIds` list as deleted.
 */
function generic(a: unknown, by: string): Effect {
  const e = none();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (
        typeof o.id === 'string' &&
        typeof o.ownerId === 'string' &&
        typeof o.contentHash === 'string'
      )
        e.created.push(fromMemory(o, by));
      if (Array.isArray(o.deletedMemoryIds)) e.deleted.push(...(o.deletedMemoryIds as string[]));
      Object.values(o).forEach(walk);
    }
  };
  walk(a);
  return e;
}

/** What an accepted answer of `useCase` did; `unknown` when the use-case is not listed here. */
export function effectOf(
  useCase: string,
  answer: unknown,
  ctx: AnswerContext,
): Effect & { unknown: boolean } {
  const known = EFFECTS[useCase as UseCaseName];
  if (known) return { ...known(answer, ctx), unknown: false };
  if (NO_MEMORY_EFFECT.has(useCase)) return { ...none(), unknown: false };
  return { ...generic(answer, useCase), unknown: true };
}

/** Every accepted write and deletion of a run. */
export class StoreModel {
  readonly accepted = new Map<string, Known>();
  readonly deleted = new Set<string>();
  readonly superseded = new Set<string>();
  readonly writes = { requests: 0, memories: 0, deletions: 0 };

  apply(effect: Effect): void {
    if (effect.created.length > 0) this.writes.requests++;
    for (const k of effect.created) {
      if (!this.accepted.has(k.id)) this.writes.memories++;
      this.accepted.set(k.id, { ...this.accepted.get(k.id), ...k });
    }
    if (effect.deleted.length > 0) this.writes.deletions++;
    for (const id of effect.deleted) this.deleted.add(id);
    for (const id of effect.superseded) this.superseded.add(id);
  }

  /** The owners accepted writes named. */
  owners(): Set<string> {
    return new Set([...this.accepted.values()].map((k) => k.ownerId));
  }
}

/** A memory as the export and the list answer it (the fields the comparison reads). */
export interface StoredMemory {
  id: string;
  ownerId: string;
  text: string;
  expiresAt: string;
  validTo: string | null;
  supersededBy: string | null;
  derivedFrom: string[];
  origin: { writtenBy: string };
}

/** One owner's memories as the server has them at the end. */
export interface OwnerState {
  /** The export: every held memory. */
  exported: StoredMemory[];
  /** The list with superseded and ended versions too: every stored, unexpired memory. */
  stored: StoredMemory[];
  /** When the reads began and ended (ISO): expiries in between may go either way. */
  from: string;
  to: string;
}

export interface Comparison {
  /** Accepted, not deleted, not superseded, not expired, and not exported. */
  missing: string[];
  /** Exported (or stored) with no accepted write, nor a background job's valid derivation, behind it. */
  unexpected: string[];
  /** Exported or stored though a receipt named it deleted. */
  resurrected: string[];
  /** Exported though an accepted write superseded it. */
  stillHeld: string[];
  /** Exported with another text than its write's answer. */
  changed: string[];
  /** Memories exported, background-derived memories among them, accepted memories checked. */
  figures: { exported: number; derived: number; acceptedHeld: number; owners: number };
}

/** Hold each owner's state to the model. Lists hold `owner/id` with a reason. */
export function compareWithStore(
  model: StoreModel,
  states: ReadonlyMap<string, OwnerState>,
): Comparison {
  const out: Comparison = {
    missing: [],
    unexpected: [],
    resurrected: [],
    stillHeld: [],
    changed: [],
    figures: { exported: 0, derived: 0, acceptedHeld: 0, owners: states.size },
  };
  const everStored = new Set(model.accepted.keys());
  // Background memories may rest on each other (a summary of reflections): known first.
  for (const s of states.values())
    for (const m of [...s.exported, ...s.stored])
      if (m.origin.writtenBy.startsWith('system:')) everStored.add(m.id);

  for (const [owner, s] of states) {
    const exported = new Map(s.exported.map((m) => [m.id, m]));
    const stored = new Map(s.stored.map((m) => [m.id, m]));
    out.figures.exported += exported.size;
    for (const m of new Map([...stored, ...exported]).values()) {
      const where = `${owner}/${m.id}`;
      if (model.deleted.has(m.id)) out.resurrected.push(`${where}: a receipt named it deleted`);
      const k = model.accepted.get(m.id);
      if (k) {
        if (k.ownerId !== owner) out.unexpected.push(`${where}: written for owner ${k.ownerId}`);
        continue;
      }
      const derived =
        m.origin.writtenBy.startsWith('system:') &&
        m.derivedFrom.length > 0 &&
        m.derivedFrom.every((id) => everStored.has(id) && !model.deleted.has(id));
      if (derived) {
        if (exported.has(m.id)) out.figures.derived++;
        continue;
      }
      out.unexpected.push(
        `${where}: written by ${m.origin.writtenBy}, derived from [${m.derivedFrom.join(', ')}], no accepted write behind it`,
      );
    }
    for (const m of exported.values()) {
      const k = model.accepted.get(m.id);
      if (!k) continue;
      out.figures.acceptedHeld++;
      if (model.superseded.has(m.id))
        out.stillHeld.push(`${owner}/${m.id}: an answer said it was superseded`);
      if (k.text !== undefined && k.text !== m.text)
        out.changed.push(
          `${owner}/${m.id}: ${JSON.stringify(k.text.slice(0, 60))} became ${JSON.stringify(m.text.slice(0, 60))}`,
        );
    }
  }

  for (const k of model.accepted.values()) {
    if (model.deleted.has(k.id) || model.superseded.has(k.id)) continue;
    const s = states.get(k.ownerId);
    if (!s) {
      out.missing.push(`${k.ownerId}/${k.id}: written by ${k.by}, its owner was not read`);
      continue;
    }
    if (s.exported.some((m) => m.id === k.id)) continue;
    // Expired before the reads began: gone by definition; during them: either way.
    if (k.expiresAt && k.expiresAt.earliest <= s.to) continue;
    // Superseded by a write whose answer did not say so (an import line with a key):
    // the store keeps it, no longer held.
    const st = s.stored.find((m) => m.id === k.id);
    if (st && (st.supersededBy !== null || (st.validTo !== null && st.validTo <= s.to))) continue;
    out.missing.push(
      `${k.ownerId}/${k.id}: written by ${k.by}${st ? ', stored but not exported' : ''}`,
    );
  }
  return out;
}
