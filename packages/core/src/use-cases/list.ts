// List an owner's memories, page by page, with filters: what a dashboard or
// an agent's "what do you hold about me?" reads. Pages follow the store's id
// order (listIds, which every store has) and the filters are one predicate
// here, so every store lists alike. A filter that matches little does not
// make one call scan the whole owner: each call reads at most SCAN_BUDGET
// ids and answers the matches found with a cursor, which may then be a
// short page (or an empty one) that is not the last.
import { z } from 'zod';
import { KeepGraphError } from '../domain/errors.ts';
import { isHeldAt } from '../domain/liveness.ts';
import {
  AUTHORITIES,
  MEMORY_KINDS,
  MemorySchema,
  identifierSchema,
  type Memory,
} from '../domain/record.ts';
import type { SessionSummary } from '../ports/memory-store.ts';
import { servePage, type Caller, type EngineDeps } from '../services/deps.ts';
import { OWNER_ID, arg, optionalArg, type ParsedArgs } from './define.ts';

/** The most memories one page holds. */
export const MAX_LIST_PAGE = 500;
/** Ids one call reads at most, whatever the filters keep of them. */
export const SCAN_BUDGET = 5_000;

const isoTime = z.iso.datetime({ offset: true });

export const MemoryFilterSchema = z.strictObject({
  kinds: z.array(z.enum(MEMORY_KINDS)).min(1).optional(),
  authorities: z.array(z.enum(AUTHORITIES)).min(1).optional(),
  /** Memories carrying this tag. */
  tag: z.string().min(1).max(256).optional(),
  /** Origin: the session, the tool, the URL or document uri it came from. */
  sessionId: identifierSchema('sessionId').optional(),
  tool: z.string().min(1).max(256).optional(),
  sourceUri: z.string().min(1).max(2048).optional(),
  createdAfter: isoTime.optional(),
  createdBefore: isoTime.optional(),
  observedAfter: isoTime.optional(),
  observedBefore: isoTime.optional(),
  expiresBefore: isoTime.optional(),
  /** Only flagged conflicts (true) or only unflagged memories (false). */
  conflict: z.boolean().optional(),
  /** Only derived memories (true) or only memories derived from nothing (false). */
  derived: z.boolean().optional(),
  /** Also superseded and ended versions (operators and analysts). */
  includeSuperseded: z.boolean().optional(),
});
export type MemoryFilter = z.output<typeof MemoryFilterSchema>;

const ListOptionsSchema = z.strictObject({
  filter: MemoryFilterSchema.prefault({}),
  /** The `next` of the previous page; absent for the first. */
  after: identifierSchema('after').optional(),
  limit: z.number().int().min(1).max(MAX_LIST_PAGE).default(100),
});
export type ListOptions = z.input<typeof ListOptionsSchema>;

export const ListMemoriesArgs = [
  arg('ownerId', OWNER_ID),
  optionalArg('options', ListOptionsSchema.prefault({})),
] as const;

export const MemoryPageSchema = z.object({
  ownerId: z.string(),
  /** The page's matches, in id order. */
  memories: z.array(MemorySchema).describe('The matches, in id order'),
  /** Pass as `after` for the next page; null when every id has been read. */
  next: z
    .string()
    .nullable()
    .describe('Pass as `after` for the next page; null once every memory has been read'),
});
export type MemoryPage = z.output<typeof MemoryPageSchema>;

const t = (iso: string) => Date.parse(iso);

/** Whether `m` passes `f` at `now` (held ones only, unless superseded ones are asked for). */
export function matchesFilter(m: Memory, f: MemoryFilter, now: string): boolean {
  if (!f.includeSuperseded && !isHeldAt(m, now)) return false;
  if (f.includeSuperseded && m.expiresAt <= now) return false;
  if (f.kinds && !f.kinds.includes(m.kind)) return false;
  if (f.authorities && !f.authorities.includes(m.authority)) return false;
  if (f.tag !== undefined && !m.tags.includes(f.tag)) return false;
  const origins = [m.origin, ...m.sourceOrigins];
  if (f.sessionId !== undefined && !origins.some((o) => o.sessionId === f.sessionId)) return false;
  if (f.tool !== undefined && !origins.some((o) => o.tool?.name === f.tool)) return false;
  if (f.sourceUri !== undefined && !origins.some((o) => o.source?.uri === f.sourceUri))
    return false;
  const created = t(m.createdAt);
  if (f.createdAfter !== undefined && !(created > t(f.createdAfter))) return false;
  if (f.createdBefore !== undefined && !(created < t(f.createdBefore))) return false;
  const observed = t(m.origin.observedAt);
  if (f.observedAfter !== undefined && !(observed > t(f.observedAfter))) return false;
  if (f.observedBefore !== undefined && !(observed < t(f.observedBefore))) return false;
  if (f.expiresBefore !== undefined && !(t(m.expiresAt) < t(f.expiresBefore))) return false;
  if (f.conflict !== undefined && m.conflict !== f.conflict) return false;
  if (f.derived !== undefined && m.derivedFrom.length > 0 !== f.derived) return false;
  return true;
}

export async function listMemories(
  deps: EngineDeps,
  { ownerId, options: opts }: ParsedArgs<typeof ListMemoriesArgs>,
  caller: Caller,
): Promise<MemoryPage> {
  if (opts.filter.includeSuperseded && caller.role !== 'operator' && caller.role !== 'analyst')
    throw new KeepGraphError(
      'forbidden_role',
      `listing superseded versions is for operators and analysts, not role ${caller.role}`,
      { role: caller.role, allowed: ['operator', 'analyst'] },
    );
  const now = deps.clock.now().toISOString();
  const found: Memory[] = [];
  let after = opts.after;
  let scanned = 0;
  let exhausted = false;
  while (found.length < opts.limit && scanned < SCAN_BUDGET) {
    const want = Math.min(opts.limit - found.length, SCAN_BUDGET - scanned);
    const ids = await deps.store.listIds(ownerId, {
      ...(after !== undefined ? { after } : {}),
      limit: want,
    });
    scanned += ids.length;
    if (ids.length === 0) {
      exhausted = true;
      break;
    }
    const rows = await deps.store.getByIds(ownerId, ids);
    const byId = new Map(rows.map((m) => [m.id, m]));
    for (const id of ids) {
      const m = byId.get(id);
      if (m && matchesFilter(m, opts.filter, now)) found.push(m);
    }
    after = ids[ids.length - 1]!;
    if (ids.length < want) {
      exhausted = true;
      break;
    }
  }
  return servePage(
    deps,
    caller,
    ownerId,
    found,
    { list: true },
    exhausted || after === undefined ? null : after,
  );
}

export const ListSessionsArgs = [
  arg('ownerId', OWNER_ID),
  optionalArg(
    'options',
    z.strictObject({ limit: z.number().int().min(1).max(1000).default(100) }).prefault({}),
  ),
] as const;

/** The owner's sessions with something unexpired in them, latest activity first. */
export async function listSessions(
  deps: EngineDeps,
  { ownerId, options }: ParsedArgs<typeof ListSessionsArgs>,
): Promise<{ ownerId: string; sessions: SessionSummary[] }> {
  const now = deps.clock.now().toISOString();
  return {
    ownerId,
    sessions: await deps.store.listSessions(ownerId, { limit: options.limit, now }),
  };
}
