// The write sequence every write shares (remember, put-by-key and
// rememberMany, which import goes through; correct; the jobs' derived
// writes): validation, authority capped by the caller's role
// (and an inference's by its sources), the policy gate, no-laundering rules
// for derived memories, supersession by key, and the retry when another
// writer of the key wins the race. Use-cases and jobs call it; it calls
// neither.
import { yieldToEventLoop } from '../domain/event-loop.ts';
import { contentHash } from '../domain/audit.ts';
import { storedFields } from '../policy/stored-fields.ts';
import { KeepGraphError, isKeepGraphError } from '../domain/errors.ts';
import { evaluateWrite, tooManySources } from '../policy/index.ts';
import {
  AUTHORITY_RANK,
  ROLE_DEFAULT_AUTHORITY,
  ROLE_MAX_AUTHORITY,
  type Authority,
  type Memory,
  type Origin,
  type ParsedMemoryInput,
} from '../domain/record.ts';
import type { AuditEventInput } from '../domain/audit.ts';
import type { KeyExpectation, MemoryWrite } from '../ports/memory-store.ts';
import { auditEvent, type Caller, type EngineDeps } from './deps.ts';

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
