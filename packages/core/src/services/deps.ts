// What every use-case receives: ports and configuration as one object
// (STYLE habit 1). Also the caller, whose role is always explicit.
import { z } from 'zod';
import { KeepGraphError } from '../domain/errors.ts';
import { inputProblem } from '../domain/input-shape.ts';
import {
  OwnerIdSchema,
  ROLES,
  copyMemory,
  identifierSchema,
  type Memory,
  type Role,
} from '../domain/record.ts';
import type { Policy } from '../policy/index.ts';
import type { Clock } from '../ports/clock.ts';
import type { Embedder } from '../ports/embedder.ts';
import type { MemoryStore } from '../ports/memory-store.ts';
import type { AuditEventInput, AuditType, KeyedHash } from '../domain/audit.ts';
import type { Observer } from '../domain/observe.ts';

export interface EngineDeps {
  store: MemoryStore;
  embedder: Embedder;
  policy: Policy;
  clock: Clock;
  newId: () => string;
  /** Keyed hash for audited values that can carry user text (keys, session ids, refusals). */
  keyedHash: KeyedHash;
  /**
   * Told what the engine did (use-cases, cascades, in-process jobs), for
   * metrics. The engine wraps it so it never throws into a use-case.
   */
  observe?: Observer;
}

/**
 * The owners a caller may act on: every owner, or a list. Credentials carry
 * it (an API key's owners, a JWT's claim); an operator's is every owner.
 */
export type OwnerScope = 'all' | readonly string[];

/** Who is calling: role and owners come from credentials, never from a payload. */
export interface Caller {
  role: Role;
  /** The owners it may act on; any other is `owner_out_of_scope`, whether it exists or not. */
  owners: OwnerScope;
  /** Principal id written into origins, audit events and the read log (`key:<id>`, `jwt:<sub>`, `jwt:sha256:<hex>`). */
  principal: string;
  /**
   * When the credential stops authenticating (ISO 8601): an API key's
   * expiry, a JWT's `exp`; null for a key that never expires; absent where
   * the caller is not a credential (the CLI on its own data directory).
   */
  expiresAt?: string | null;
  requestId?: string;
  sessionId?: string;
}

/**
 * What a credential (an API key, a JWT, the local data directory) says of
 * its holder: the caller of every request it authenticates, less the
 * request's own ids.
 */
export type Credential = Omit<Caller, 'requestId' | 'sessionId'>;

const CallerSchema = z.object({
  role: z.enum(ROLES),
  owners: z.union([z.literal('all'), z.array(z.string()).readonly()]),
  principal: z.string().trim().min(1).max(256),
  expiresAt: z.string().nullable().optional(),
  requestId: z.string().max(256).optional(),
  sessionId: z.string().max(256).optional(),
});

export function checkCaller(caller: Caller): Caller {
  const r = CallerSchema.safeParse(caller);
  if (!r.success)
    throw new KeepGraphError('forbidden_role', 'caller must have a known role and a principal');
  return caller;
}

/** Whether `ownerId` is in the caller's scope. */
export function inScope(caller: Caller, ownerId: string): boolean {
  return caller.owners === 'all' || caller.owners.includes(ownerId);
}

/**
 * Refuse an owner outside the caller's scope. The refusal never says whether
 * the owner exists, and comes before anything is read.
 */
export function requireOwnerInScope(caller: Caller, ownerId: string): void {
  if (!inScope(caller, ownerId))
    throw new KeepGraphError('owner_out_of_scope', "this owner is outside the caller's scope", {
      field: 'ownerId',
    });
}

/** Refuse a caller scoped to some owners where a use-case spans all of them. */
export function requireAllOwners(caller: Caller, what: string): void {
  if (caller.owners !== 'all')
    throw new KeepGraphError(
      'owner_out_of_scope',
      `${what} spans every owner: it needs credentials for all owners`,
    );
}

export function checkOwner(ownerId: unknown): string {
  if (typeof ownerId !== 'string' || ownerId.trim() === '')
    throw new KeepGraphError('owner_required', 'a non-blank owner id is required');
  const r = OwnerIdSchema.safeParse(ownerId);
  if (!r.success)
    throw new KeepGraphError('invalid_input', r.error.issues[0]?.message ?? 'invalid owner id', {
      field: 'ownerId',
    });
  return r.data;
}

/** Memory ids as callers send them: non-blank strings, at most 10,000 at once. */
export const IdSchema = identifierSchema('id');
export const IdListSchema = z.array(IdSchema).max(10_000);

export function requireRole(caller: Caller, allowed: readonly Role[], what: string): void {
  if (!allowed.includes(caller.role)) {
    throw new KeepGraphError('forbidden_role', `${what} is not allowed for role ${caller.role}`, {
      role: caller.role,
      allowed,
    });
  }
}

/**
 * Parse with zod and turn failures into `invalid_input` with readable paths.
 * The value's shape is checked first (see input-shape.ts): zod would recurse
 * into a deep nesting past the call stack.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const bad = inputProblem(value);
  if (bad !== null) {
    const issues = [{ path: bad.path, message: bad.message }];
    throw new KeepGraphError('invalid_input', `${bad.path}: ${bad.message}`, { issues });
  }
  const r = schema.safeParse(value);
  if (!r.success) {
    const issues = r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    throw new KeepGraphError(
      'invalid_input',
      issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; '),
      {
        issues,
      },
    );
  }
  return r.data;
}

/** How a read is logged: its request, its session, what kind of read it was. */
export interface ServedRead {
  /** The read's request id (recall answers with it); the caller's, else a new one. */
  requestId?: string;
  /** The session the read was for; the caller's when absent. Logged as its keyed hash. */
  sessionId?: string | null;
  /** More for the audit event (`export: true`, `dryRun: 'forget'`...). */
  details?: Record<string, unknown>;
}

/**
 * Log a read that handed these memories' content to the caller: an entry of
 * the read log (which memories were served to which principal, session and
 * request, so that a memory later found poisoned can be traced to every
 * answer it reached) and its audit event, neither with any text. Every
 * use-case that answers with memory text or what was read from it (recall,
 * why, get, a key's value, lineage, neighbours, the entity graph's reasons,
 * list and export pages, a dry run) logs through here; nothing is logged
 * for a read that served nothing.
 */
export async function logServed(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  memoryIds: readonly string[],
  read: ServedRead = {},
): Promise<void> {
  const ids = [...new Set(memoryIds)];
  if (ids.length === 0) return;
  const at = deps.clock.now().toISOString();
  const requestId = read.requestId ?? caller.requestId ?? deps.newId();
  // A session id on a read is the caller's text, never gated: the read log
  // and the audit keep its keyed hash, which still groups a session's reads.
  const sessionId = read.sessionId === undefined ? (caller.sessionId ?? null) : read.sessionId;
  const sessionIdHash = sessionId === null ? null : deps.keyedHash(sessionId);
  // Accepted, not awaited to disk: the store writes reads in groups (see ReadJournal).
  await deps.store.logReads(
    [
      {
        ownerId,
        requestId,
        principal: caller.principal,
        sessionId: sessionIdHash,
        memoryIds: ids,
        at,
      },
    ],
    [
      auditEvent(caller, 'read', at, ownerId, {
        memoryIds: ids,
        details: { requestId, sessionIdHash, ...read.details },
      }),
    ],
  );
}

/** A page of an owner's memories: a list page or an export page. */
export interface ServedPage {
  ownerId: string;
  memories: Memory[];
  /** Pass as `after` for the next page; null after the last. */
  next: string | null;
}

/**
 * Answer a page of memories: log the read (with `details` saying which kind
 * of page it was), then hand out copies, so that a caller mutating its answer
 * cannot reach a store's cached rows.
 */
export async function servePage(
  deps: EngineDeps,
  caller: Caller,
  ownerId: string,
  memories: readonly Memory[],
  details: Record<string, unknown>,
  next: string | null,
): Promise<ServedPage> {
  await logServed(
    deps,
    caller,
    ownerId,
    memories.map((m) => m.id),
    { details },
  );
  return { ownerId, memories: memories.map((m) => copyMemory(m)), next };
}

export function auditEvent(
  caller: Caller,
  type: AuditType,
  at: string,
  ownerId: string | null,
  fields: Partial<Pick<AuditEventInput, 'memoryIds' | 'contentHashes' | 'reason' | 'details'>> = {},
): AuditEventInput {
  return {
    type,
    at,
    ownerId,
    actor: caller.principal,
    role: caller.role,
    memoryIds: fields.memoryIds ?? [],
    contentHashes: fields.contentHashes ?? [],
    reason: fields.reason ?? null,
    details: fields.details ?? {},
  };
}
