// The session buffer (short-term memory) and the read log: small owner-
// scoped tables written outside the big write batch.
import { toMs } from '@keepgraph/core/ports';
import type { AuditEventInput, Role } from '@keepgraph/core';
import type {
  OwnerResidue,
  ReadLogEntry,
  ReadLogQuery,
  SessionMessage,
  SessionScope,
  SessionSummary,
  SessionWriter,
} from '@keepgraph/core/ports';
import { appendAuditEvents } from './audit-log.ts';
import { deleteOwnerPasses } from './scheduled-passes.ts';
import type { StoreContext } from './store-context.ts';

interface MessageRow {
  seq: number;
  owner_id: string;
  session_id: string;
  role: SessionMessage['role'];
  text: string;
  at: string;
  expires_at: string;
  memory_id: string | null;
  writer_principal: string | null;
  writer_role: Role | null;
}

/** A row's writer: null when the row predates writers (0017) or lacks either half. */
function writerOf(r: MessageRow): SessionWriter | null {
  return r.writer_principal === null || r.writer_role === null
    ? null
    : { principal: r.writer_principal, role: r.writer_role };
}

/** The newest `limit` unexpired messages of a session, oldest first (reading order). */
export function sessionMessages(
  ctx: StoreContext,
  ownerId: string,
  sessionId: string,
  opts: { limit: number; now: string },
): SessionMessage[] {
  const rows = ctx.st
    .sql(
      `SELECT seq, owner_id, session_id, role, text, at, expires_at, memory_id, writer_principal, writer_role
         FROM session_messages
        WHERE owner_id = ? AND session_id = ? AND expires_ms > ?
        ORDER BY seq DESC LIMIT ?`,
    )
    .all(ownerId, sessionId, toMs(opts.now, 'now'), opts.limit) as MessageRow[];
  return rows.reverse().map((r) => ({
    ownerId: r.owner_id,
    sessionId: r.session_id,
    role: r.role,
    text: r.text,
    at: r.at,
    expiresAt: r.expires_at,
    memoryId: r.memory_id,
    writer: writerOf(r),
    seq: r.seq,
  }));
}

/** Keep the newest `keep` messages of the session; returns how many were dropped. */
export function trimSession(
  ctx: StoreContext,
  ownerId: string,
  sessionId: string,
  keep: number,
): number {
  return ctx.st
    .sql(
      `DELETE FROM session_messages
        WHERE owner_id = @ownerId AND session_id = @sessionId
          AND seq NOT IN (SELECT seq FROM session_messages
                           WHERE owner_id = @ownerId AND session_id = @sessionId
                           ORDER BY seq DESC LIMIT @keep)`,
    )
    .run({ ownerId, sessionId, keep: Math.max(0, Math.trunc(keep)) }).changes;
}

/** Delete a session's messages, or one of them; returns how many. */
export function deleteSessionMessages(
  ctx: StoreContext,
  ownerId: string,
  scope: SessionScope,
): number {
  return ctx.st
    .sql(
      `DELETE FROM session_messages WHERE owner_id = @ownerId AND session_id = @sessionId
         AND (@seq IS NULL OR seq = @seq)`,
    )
    .run({ ownerId, sessionId: scope.sessionId, seq: scope.seq ?? null }).changes;
}

/** Delete the owner's sessions, read-log rows and pending outbox jobs, in one transaction. */
export function deleteOwnerResidue(ctx: StoreContext, ownerId: string): OwnerResidue {
  const { st } = ctx;
  return ctx.db.transaction(() => {
    // Not counted in the residue: a due pass holds nothing of the owner's but its id.
    deleteOwnerPasses(st, ownerId);
    ctx.vectors.dropOwner(ownerId);
    return {
      sessionMessages: st.sql('DELETE FROM session_messages WHERE owner_id = ?').run(ownerId)
        .changes,
      readLogRows: st.sql('DELETE FROM read_log WHERE owner_id = ?').run(ownerId).changes,
      outboxJobs: st.sql('DELETE FROM outbox WHERE owner_id = ?').run(ownerId).changes,
      idempotencyRecords: st.sql('DELETE FROM idempotency WHERE owner_id = ?').run(ownerId).changes,
    };
  })();
}

/** Record which memories were served to whom, and their audit events, in one transaction. */
export function logReads(
  ctx: StoreContext,
  reads: readonly ReadLogEntry[],
  audit: readonly AuditEventInput[],
): void {
  const insert = ctx.st.sql(
    `INSERT INTO read_log (owner_id, request_id, principal, session_id, memory_ids_json, at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  ctx.db
    .transaction(() => {
      for (const entry of reads)
        insert.run(
          entry.ownerId,
          entry.requestId,
          entry.principal,
          entry.sessionId,
          JSON.stringify(entry.memoryIds),
          entry.at,
        );
      appendAuditEvents(ctx, audit);
    })
    .immediate();
}

/**
 * The owner's read-log entries, newest first; with `memoryId`, those that
 * served it (json_each over the served ids), with `before`, those before it.
 */
export function readLog(ctx: StoreContext, ownerId: string, opts: ReadLogQuery): ReadLogEntry[] {
  const rows = ctx.st
    .sql(
      `SELECT owner_id, request_id, principal, session_id, memory_ids_json, at FROM read_log r
        WHERE owner_id = @ownerId
          AND (@before IS NULL OR at < @before)
          AND (@memoryId IS NULL
               OR EXISTS (SELECT 1 FROM json_each(r.memory_ids_json) WHERE value = @memoryId))
        ORDER BY at DESC, id DESC LIMIT @limit`,
    )
    .all({
      ownerId,
      before: opts.before ?? null,
      memoryId: opts.memoryId ?? null,
      limit: opts.limit,
    }) as {
    owner_id: string;
    request_id: string;
    principal: string;
    session_id: string | null;
    memory_ids_json: string;
    at: string;
  }[];
  return rows.map((r) => ({
    ownerId: r.owner_id,
    requestId: r.request_id,
    principal: r.principal,
    sessionId: r.session_id,
    memoryIds: JSON.parse(r.memory_ids_json) as string[],
    at: r.at,
  }));
}

/** The owner's sessions with unexpired messages or memories, latest activity first. */
export function listSessions(
  ctx: StoreContext,
  ownerId: string,
  opts: { limit: number; now: string },
): SessionSummary[] {
  const nowMs = toMs(opts.now, 'now');
  const rows = ctx.st
    .sql(
      `SELECT session_id, sum(messages) AS messages, sum(memories) AS memories,
              min(first_ms) AS first_ms, max(last_ms) AS last_ms
         FROM (SELECT session_id, count(*) AS messages, 0 AS memories,
                      min(at_ms) AS first_ms, max(at_ms) AS last_ms
                 FROM session_messages
                WHERE owner_id = @ownerId AND expires_ms > @nowMs
                GROUP BY session_id
               UNION ALL
               SELECT session_id, 0, count(*), min(created_ms), max(created_ms)
                 FROM memories
                WHERE owner_id = @ownerId AND session_id IS NOT NULL AND expires_ms > @nowMs
                GROUP BY session_id)
        GROUP BY session_id
        ORDER BY last_ms DESC, session_id
        LIMIT @limit`,
    )
    .all({ ownerId, nowMs, limit: opts.limit }) as {
    session_id: string;
    messages: number;
    memories: number;
    first_ms: number;
    last_ms: number;
  }[];
  return rows.map((r) => ({
    sessionId: r.session_id,
    messages: r.messages,
    memories: r.memories,
    firstAt: new Date(r.first_ms).toISOString(),
    lastAt: new Date(r.last_ms).toISOString(),
  }));
}
