// remember / put-by-key: the write path. Validation, authority capped by the
// caller's role (and an inference's by its sources), the policy gate,
// no-laundering rules for derived memories, supersession by key, then one
// atomic store write with its audit events.
import { yieldToEventLoop } from '../event-loop.ts';
import { contentHash } from '../audit.ts';
import { storedFields } from '../policy/stored-fields.ts';
import { KeepGraphError, isKeepGraphError } from '../errors.ts';
import { evaluateWrite, ownerCap, tooManySources } from '../policy/index.ts';
import {
  AUTHORITY_RANK,
  MemoryInputSchema,
  ROLE_DEFAULT_AUTHORITY,
  ROLE_MAX_AUTHORITY,
  copyMemory,
  type Authority,
  type Memory,
  type MemoryInput,
  type Origin,
  type ParsedMemoryInput,
} from '../record.ts';
import type { AuditEventInput } from '../audit.ts';
import type { KeyExpectation, MemoryWrite } from '../ports/memory-store.ts';
import { z } from 'zod';
import { auditEvent, parseInput, type Caller, type EngineDeps } from './deps.ts';
import { OWNER_ID, arg, uncheckedArg, type ParsedArgs } from './define.ts';
import { evictOverCap } from './forget.ts';
import { embeddingText } from '../indexed-text.ts';
import { triggeredJobs } from '../jobs/triggers.ts';
import { passesDue } from '../jobs/scheduled-pass.ts';

export interface RememberResult {
  memory: Memory;
  /** Id of the memory this one superseded (same key, authority not lower). */
  superseded: string | null;
}

/** One refused or failed item of a batch, by position. */
export interface RememberFailure {
  index: number;
  code: string;
  message: string;
}

export interface RememberManyResult {
  stored: Memory[];
  failed: RememberFailure[];
}

interface Prepared {
  write: MemoryWrite;
  supersede: { ownerId: string; id: string; by: string; at: string }[];
  audit: AuditEventInput[];
  /** What the supersession decision read of the key: the store re-checks it (WriteBatch.keys). */
  keys: KeyExpectation[];
}

/** Stable JSON of an origin, for de-duplicating the union of origins. */
function originKey(o: Origin): string {
  return JSON.stringify(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

export function unionOrigins(origins: Iterable<Origin>): Origin[] {
  const seen = new Map<string, Origin>();
  for (const o of origins) if (!seen.has(originKey(o))) seen.set(originKey(o), o);
  return [...seen.values()];
}

function resolveAuthority(caller: Caller, requested: Authority | undefined): Authority {
  // The registry keeps analysts away from every write; this is the backstop.
  if (caller.role === 'analyst')
    throw new KeepGraphError('forbidden_role', 'writing a memory is not allowed for role analyst', {
      role: caller.role,
    });
  const authority = requested ?? ROLE_DEFAULT_AUTHORITY[caller.role];
  const max = ROLE_MAX_AUTHORITY[caller.role];
  if (AUTHORITY_RANK[authority] > AUTHORITY_RANK[max]) {
    throw new KeepGraphError(
      'authority_exceeds_role',
      `role ${caller.role} may write authority up to ${max}, not ${authority}`,
      { role: caller.role, requested: authority, max },
    );
  }
  return authority;
}

/** Roles whose writes are their own word, whatever they were derived from. */
const VOUCHING_ROLES: ReadonlySet<Caller['role']> = new Set(['operator', 'user']);

/**
 * The authority a derived memory is stored with. An operator or a user
 * vouches for what they write themselves (a correction of a claim read from
 * a page is the user's word). Anything else that derives (an agent, a tool,
 * reflection and compaction, which write as the agent role) only infers,
 * and an inference vouches for no more than its weakest source: a claim
 * read from a third-party page stays `third_party` however it is
 * reworded, so it is rendered as untrusted and never supersedes a stronger
 * claim on its key (invariants 3, 8 and 9).
 */
export function derivedAuthority(
  caller: Caller,
  requested: Authority,
  sources: readonly Pick<Memory, 'authority'>[],
): Authority {
  if (VOUCHING_ROLES.has(caller.role)) return requested;
  return sources.reduce<Authority>(
    (a, s) => (AUTHORITY_RANK[s.authority] < AUTHORITY_RANK[a] ? s.authority : a),
    requested,
  );
}

/**
 * Everything short of the store write: throws KeepGraphError on refusal.
 * Reflection and compaction use it too, so derived memories pass the same
 * gate, no-laundering and supersession rules as any other write.
 */
export async function prepareWrite(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  input: ParsedMemoryInput,
  decidedAt: Date,
): Promise<Omit<Prepared, 'write'> & { memory: Memory }> {
  const requested = resolveAuthority(caller, input.authority);
  const derived = input.derivedFrom.length > 0;

  // Invariant 2 (an inferred or derived memory names its sources) is the
  // gate's `sources.requireDerivedFrom`; here we check the sources exist.
  const sourceIds = [...new Set(input.derivedFrom)];
  // The gate's fan-out rule, checked before the sources are read: reading
  // thousands of them is the cost the rule is there to refuse.
  const fanOut = tooManySources(deps.policy, sourceIds.length);
  if (fanOut) throw new KeepGraphError(fanOut.code, fanOut.message, fanOut.details);
  const sources = derived ? await deps.store.getByIds(ownerId, sourceIds) : [];
  const live = sources.filter((s) => s.expiresAt > decidedAt.toISOString());
  if (live.length !== sourceIds.length) {
    const found = new Set(live.map((s) => s.id));
    throw new KeepGraphError(
      'refused_missing_sources',
      'derivedFrom names memories this owner does not have',
      {
        missing: sourceIds.filter((id) => !found.has(id)),
      },
    );
  }

  // No laundering: an inference vouches for no more than its weakest source.
  // The gate judges the claim as the writer made it (each source passed the
  // gate with its own origin when it was written).
  const authority = derivedAuthority(caller, requested, live);

  const decision = await evaluateWrite(deps.policy, {
    kind: input.kind,
    text: input.text,
    authority: requested,
    sensitivity: input.sensitivity,
    origin: input.origin,
    ttlSeconds: input.ttlSeconds,
    derived,
    sourceCount: sourceIds.length,
    // The owner id is stored on every record it owns: gated like any field.
    fields: [{ path: 'ownerId', value: ownerId }, ...storedFields(input)],
  });
  if (!decision.ok) throw new KeepGraphError(decision.code, decision.message, decision.details);

  // A keyed write is decided on the versions of its key it reads, so it comes
  // after the newest of them, even one another process wrote after
  // `decidedAt`: a chain's versions are in time order (eviction and expiry
  // take the oldest first).
  const versions = input.key
    ? (await deps.store.getByKey(ownerId, input.key)).filter((m) => m.supersededBy === null)
    : [];
  const at = versions.reduce(
    (t, m) => (m.createdAt > t ? m.createdAt : t),
    decidedAt.toISOString(),
  );
  const now = new Date(at);

  // Invariant 8: a derived memory expires no later than its earliest source,
  // unless an operator explicitly confirms it.
  let expiresAt = new Date(now.getTime() + decision.ttlSeconds * 1000).toISOString();
  const keepPastSources = input.confirmExpiry === true && caller.role === 'operator';
  if (derived && !keepPastSources) {
    const earliest = live.map((s) => s.expiresAt).sort()[0]!;
    if (earliest < expiresAt) expiresAt = earliest;
  }

  const origin: Origin = {
    ...input.origin,
    observedAt: input.origin.observedAt ?? at,
    writtenBy: caller.principal,
  };
  const sourceOrigins = unionOrigins(
    live.flatMap((s) => (s.sourceOrigins.length ? s.sourceOrigins : [s.origin])),
  );

  const id = deps.newId();
  const supersede: Prepared['supersede'] = [];
  const audit: AuditEventInput[] = [];
  let conflict = false;
  let supersedes: string | null = null;
  const keys: KeyExpectation[] = [];
  if (input.key) {
    keys.push({ ownerId, key: input.key, currentIds: versions.map((m) => m.id) });
    const current = versions.filter((m) => m.expiresAt > at);
    // Invariant 3: a lower-authority claim never replaces a higher one; it is
    // kept beside it, flagged as a conflict.
    const higher = current.filter((m) => AUTHORITY_RANK[m.authority] > AUTHORITY_RANK[authority]);
    if (higher.length > 0) {
      conflict = true;
    } else {
      for (const m of current) {
        supersede.push({ ownerId, id: m.id, by: id, at });
        supersedes ??= m.id;
      }
    }
  }

  const memory: Memory = {
    id,
    ownerId,
    kind: input.kind,
    text: decision.text,
    key: input.key ?? null,
    origin,
    sourceOrigins,
    authority,
    createdAt: at,
    validFrom: input.validFrom ?? at,
    validTo: null,
    expiresAt,
    sensitivity: input.sensitivity,
    tags: [...new Set(input.tags)],
    confidence: input.confidence,
    contentHash: contentHash(decision.text),
    derivedFrom: sourceIds,
    supersedes,
    supersededBy: null,
    conflict,
    about: input.about,
    relations: input.relations,
    embeddingModel: deps.embedder.modelId,
    redactions: decision.redactions,
  };
  audit.push(
    auditEvent(caller, 'write', at, ownerId, {
      memoryIds: [id],
      contentHashes: [memory.contentHash],
      details: {
        kind: memory.kind,
        authority,
        ...(authority !== requested && { requestedAuthority: requested }),
        derivedFrom: sourceIds.length,
        redactions: decision.redactions,
        conflict,
        requestId: caller.requestId ?? null,
      },
    }),
  );
  if (supersede.length > 0) {
    audit.push(
      auditEvent(caller, 'supersede', at, ownerId, {
        memoryIds: supersede.map((s) => s.id),
        reason: 'key',
        details: { by: id, keyHash: deps.keyedHash(input.key!) },
      }),
    );
  }
  return { memory, supersede, audit, keys };
}

export async function auditRefusal(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  text: string,
  err: KeepGraphError,
) {
  // Refusals are audited with a keyed hash of the text, never the text
  // (invariant 4), nor a plain hash a short refused value could be found from.
  await deps.store.appendAudit([
    refusalEvent(deps, caller, ownerId, err, {
      contentHashes: [deps.keyedHash(text)],
      details: { requestId: caller.requestId ?? null },
    }),
  ]);
}

/**
 * A refusal's audit event. When the owner id itself was refused (it holds a
 * secret or personal data), the event names no owner: it keeps the id's
 * keyed hash instead, so the refused value never reaches the log.
 */
export function refusalEvent(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  err: { code: string; details?: Record<string, unknown> },
  fields: { contentHashes: string[]; details: Record<string, unknown> },
): AuditEventInput {
  const ownerRefused = err.details?.field === 'ownerId';
  return auditEvent(
    caller,
    'refuse',
    deps.clock.now().toISOString(),
    ownerRefused ? null : ownerId,
    {
      contentHashes: fields.contentHashes,
      reason: err.code,
      details: {
        ...fields.details,
        ...(err.details?.field !== undefined && { field: err.details.field }),
        ...(ownerRefused && { ownerIdHash: deps.keyedHash(ownerId) }),
      },
    },
  );
}

export function isAuditedRefusal(e: unknown): e is KeepGraphError {
  return (
    isKeepGraphError(e) && (e.code.startsWith('refused_') || e.code === 'authority_exceeds_role')
  );
}

/** Store one memory, or throw a KeepGraphError with a code (refusals are audited). */
export const RememberArgs = [
  arg('ownerId', OWNER_ID),
  arg('input', uncheckedArg(MemoryInputSchema)),
] as const;

export async function remember(
  deps: EngineDeps,
  { ownerId, input }: ParsedArgs<typeof RememberArgs>,
  caller: Caller,
): Promise<RememberResult> {
  const now = deps.clock.now();
  let prepared: Awaited<ReturnType<typeof prepareWrite>>;
  try {
    prepared = await prepareWrite(deps, caller, ownerId, input, now);
  } catch (e) {
    if (isAuditedRefusal(e)) await auditRefusal(deps, caller, ownerId, input.text, e);
    throw e;
  }
  const [embedding] = await deps.embedder.embed([embeddingText(prepared.memory)], 'document');
  const id = prepared.memory.id;
  await writeDecidingAgain(deps, async (attempt) => {
    // Another writer of the key won: decide supersession again from what it left (same id, same vector).
    // Decided again now, not at the first attempt's instant: the version it
    // supersedes was written after that instant, and a chain's versions must
    // be in time order (eviction and expiry take the oldest first).
    if (attempt > 0)
      prepared = await prepareWrite(
        { ...deps, newId: () => id },
        caller,
        ownerId,
        input,
        deps.clock.now(),
      );
    const memories = [{ memory: prepared.memory, embedding: embedding ?? null }];
    await deps.store.write({
      memories,
      supersede: prepared.supersede,
      sessionMessages: [],
      audit: prepared.audit,
      jobs: await triggeredJobs(deps, ownerId, memories),
      due: passesDue(ownerId, memories),
      keys: prepared.keys,
    });
  });
  await evictOverCap(deps, caller, ownerId, ownerCap(deps.policy));
  return { memory: copyMemory(prepared.memory), superseded: prepared.supersede[0]?.id ?? null };
}

/** How often a keyed write decides again after losing a race for its key before it gives up. */
export const KEY_RACE_ATTEMPTS = 100;

/**
 * Run `attempt` until the store takes it: a `key_changed` conflict (another
 * writer of the key committed between our read and our write) runs it again,
 * with the attempt number, so the caller re-reads the key and decides again.
 */
export async function writeDecidingAgain(
  deps: EngineDeps,
  attempt: (n: number) => Promise<void>,
): Promise<void> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      const raced =
        isKeepGraphError(e) && e.code === 'conflict' && e.details?.reason === 'key_changed';
      if (!raced || n + 1 >= KEY_RACE_ATTEMPTS) throw e;
      // Let the winner's followers (its eviction, its jobs) go first.
      await yieldToEventLoop();
    }
  }
}

/** The most memories one rememberMany call takes (every interface: HTTP, import, SDKs). */
export const MAX_BATCH = 1000;

export const PutByKeyArgs = [
  arg('ownerId', OWNER_ID),
  arg('key', z.custom<string>()),
  // A memory input without its key; parsed as a whole memory below, so the
  // key from the argument wins over one in the body.
  arg(
    'input',
    uncheckedArg(z.custom<Omit<MemoryInput, 'key' | 'kind'> & { kind?: MemoryInput['kind'] }>()),
  ),
] as const;

/** Put a value under (owner, key): a `kv` memory unless another kind is given. */
export function putByKey(
  deps: EngineDeps,
  { ownerId, key, input }: ParsedArgs<typeof PutByKeyArgs>,
  caller: Caller,
): Promise<RememberResult> {
  const memory = parseInput(MemoryInputSchema, { kind: 'kv', ...input, key });
  return remember(deps, { ownerId, input: memory }, caller);
}

/**
 * Store many memories of one owner with batched embeddings: the import and
 * benchmark path. Each item passes the same gate; refusals are reported by
 * index and audited, and do not stop the rest. Items are written in order, so
 * an item may name an earlier one in derivedFrom only after it is stored:
 * split such batches.
 */
export const RememberManyArgs = [
  arg('ownerId', OWNER_ID),
  // Each item is parsed on its own below, so one bad item fails alone.
  arg('items', z.custom<readonly unknown[]>()),
] as const;

export async function rememberMany(
  deps: EngineDeps,
  { ownerId, items: raws }: ParsedArgs<typeof RememberManyArgs>,
  caller: Caller,
): Promise<RememberManyResult> {
  if (!Array.isArray(raws) || raws.length === 0 || raws.length > MAX_BATCH)
    throw new KeepGraphError(
      'invalid_input',
      `a batch holds 1 to ${MAX_BATCH} memories (got ${Array.isArray(raws) ? raws.length : 'none'})`,
      { max: MAX_BATCH },
    );
  const now = deps.clock.now();
  const ok: {
    index: number;
    input: ParsedMemoryInput;
    p: Awaited<ReturnType<typeof prepareWrite>>;
  }[] = [];
  const failed: RememberFailure[] = [];
  const keysInBatch = new Set<string>();
  for (const [index, raw] of raws.entries()) {
    // Each item's gate is a few ms of CPU: let other requests in between.
    await yieldToEventLoop();
    try {
      const input = parseInput(MemoryInputSchema, raw);
      // Two writes of one key in one batch would both see the same "current"
      // version; keep the semantics of sequential writes by refusing that.
      if (input.key) {
        if (keysInBatch.has(input.key)) {
          throw new KeepGraphError('conflict', `key ${input.key} appears twice in one batch`);
        }
        keysInBatch.add(input.key);
      }
      try {
        ok.push({ index, input, p: await prepareWrite(deps, caller, ownerId, input, now) });
      } catch (e) {
        if (isAuditedRefusal(e)) await auditRefusal(deps, caller, ownerId, input.text, e);
        throw e;
      }
    } catch (e) {
      if (!isKeepGraphError(e)) throw e;
      failed.push({ index, code: e.code, message: e.message });
    }
  }
  if (ok.length > 0) {
    const vectors = await deps.embedder.embed(
      ok.map((o) => embeddingText(o.p.memory)),
      'document',
    );
    await writeDecidingAgain(deps, async (attempt) => {
      if (attempt > 0)
        for (const o of ok) {
          const id = o.p.memory.id;
          const again = deps.clock.now(); // as in remember: a chain's versions in time order
          o.p = await prepareWrite({ ...deps, newId: () => id }, caller, ownerId, o.input, again);
        }
      const memories = ok.map((o, i) => ({ memory: o.p.memory, embedding: vectors[i] ?? null }));
      await deps.store.write({
        memories,
        supersede: ok.flatMap((o) => o.p.supersede),
        sessionMessages: [],
        audit: ok.flatMap((o) => o.p.audit),
        jobs: await triggeredJobs(deps, ownerId, memories),
        due: passesDue(ownerId, memories),
        keys: ok.flatMap((o) => o.p.keys),
      });
    });
    await evictOverCap(deps, caller, ownerId, ownerCap(deps.policy));
  }
  return { stored: ok.map((o) => copyMemory(o.p.memory)), failed };
}
