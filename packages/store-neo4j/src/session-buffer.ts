// The session buffer (short-term memory) and the read log: small owner-
// scoped nodes written outside the big write batch.
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
import type { StoreContext } from './store-context.ts';
import { inWrite, int, num, readRows, rows } from './transactions.ts';

interface MessageRow {
  x: Record<string, unknown>;
}

/** The newest `limit` unexpired messages of a session, oldest first (reading order). */
export async function sessionMessages(
  ctx: StoreContext,
  ownerId: string,
  sessionId: string,
  opts: { limit: number; now: string },
): Promise<SessionMessage[]> {
  const found = await readRows<MessageRow>(
    ctx,
    `MATCH (x:SessionMessage {ownerId: $ownerId, sessionId: $sessionId})
      WHERE x.expiresMs > $nowMs
     RETURN x {.*} AS x ORDER BY x.seq DESC LIMIT $limit`,
    { ownerId, sessionId, nowMs: toMs(opts.now, 'now'), limit: int(Math.max(0, opts.limit)) },
  );
  return found.reverse().map(({ x }) => ({
    ownerId: String(x.ownerId),
    sessionId: String(x.sessionId),
    role: String(x.role) as SessionMessage['role'],
    text: String(x.text),
    at: String(x.at),
    expiresAt: String(x.expiresAt),
    memoryId: x.memoryId === null || x.memoryId === undefined ? null : String(x.memoryId),
    writer: writerOf(x),
    seq: num(x.seq),
  }));
}

/**
 * A message's writer: null for a message stored before writers were
 * recorded (no writer properties; Neo4j keeps no property set to null).
 */
function writerOf(x: Record<string, unknown>): SessionWriter | null {
  const { writerPrincipal: principal, writerRole: role } = x;
  if (principal === null || principal === undefined || role === null || role === undefined)
    return null;
  return { principal: String(principal), role: String(role) as Role };
}

/** Keep the newest `keep` messages of the session; returns how many were dropped. */
export async function trimSession(
  ctx: StoreContext,
  ownerId: string,
  sessionId: string,
  keep: number,
): Promise<number> {
  return inWrite(ctx, async (tx) => {
    const [row] = rows<{ n: unknown }>(
      await tx.run(
        `MATCH (x:SessionMessage {ownerId: $ownerId, sessionId: $sessionId})
         WITH x ORDER BY x.seq DESC SKIP $keep
         DETACH DELETE x
         RETURN count(*) AS n`,
        { ownerId, sessionId, keep: int(Math.max(0, Math.trunc(keep))) },
      ),
    );
    return num(row?.n ?? 0);
  });
}

/**
 * Delete a session's messages, or one of them; returns how many. A whole
 * session takes its Session node (and its id) with it; a session emptied
 * one message at a time keeps it, as trimming does, for its counter.
 */
export async function deleteSessionMessages(
  ctx: StoreContext,
  ownerId: string,
  scope: SessionScope,
): Promise<number> {
  return inWrite(ctx, async (tx) => {
    const params = {
      ownerId,
      sessionId: scope.sessionId,
      seq: scope.seq === undefined ? null : int(scope.seq),
    };
    const [row] = rows<{ n: unknown }>(
      await tx.run(
        `MATCH (x:SessionMessage {ownerId: $ownerId, sessionId: $sessionId})
          WHERE $seq IS NULL OR x.seq = $seq
         DETACH DELETE x
         RETURN count(*) AS n`,
        params,
      ),
    );
    if (scope.seq === undefined) {
      await tx.run('MATCH (s:Session {ownerId: $ownerId, id: $sessionId}) DETACH DELETE s', params);
    }
    return num(row?.n ?? 0);
  });
}

/** Delete the owner's sessions, read-log rows and pending outbox jobs, in one transaction. */
export async function deleteOwnerResidue(
  ctx: StoreContext,
  ownerId: string,
): Promise<OwnerResidue> {
  return inWrite(ctx, async (tx) => {
    const count = async (cypher: string) =>
      num(rows<{ n: unknown }>(await tx.run(cypher, { ownerId }))[0]?.n ?? 0);
    const sessionMessages = await count(
      'MATCH (x:SessionMessage {ownerId: $ownerId}) DETACH DELETE x RETURN count(*) AS n',
    );
    await count('MATCH (s:Session {ownerId: $ownerId}) DETACH DELETE s RETURN count(*) AS n');
    const readLogRows = await count(
      'MATCH (r:ReadLog {ownerId: $ownerId}) DETACH DELETE r RETURN count(*) AS n',
    );
    const outboxJobs = await count(
      'MATCH (j:OutboxJob {ownerId: $ownerId}) DETACH DELETE j RETURN count(*) AS n',
    );
    const idempotencyRecords = await count(
      'MATCH (r:IdempotencyRecord {ownerId: $ownerId}) DELETE r RETURN count(*) AS n',
    );
    // Not counted in the residue: a due pass holds nothing of the owner's but its id.
    await count('MATCH (p:PassDue {ownerId: $ownerId}) DELETE p RETURN count(*) AS n');
    return { sessionMessages, readLogRows, outboxJobs, idempotencyRecords };
  });
}

/** Record which memories were served to whom, and their audit events, in one transaction. */
export async function logReads(
  ctx: StoreContext,
  reads: readonly ReadLogEntry[],
  audit: readonly AuditEventInput[],
): Promise<void> {
  await inWrite(ctx, async (tx) => {
    if (reads.length > 0)
      await tx.run(
        `UNWIND $reads AS r
         CREATE (:ReadLog {ownerId: r.ownerId, requestId: r.requestId, principal: r.principal,
                           sessionId: r.sessionId, memoryIds: r.memoryIds, at: r.at})`,
        {
          reads: reads.map((entry) => ({
            ownerId: entry.ownerId,
            requestId: entry.requestId,
            principal: entry.principal,
            sessionId: entry.sessionId,
            memoryIds: JSON.stringify(entry.memoryIds),
            at: entry.at,
          })),
        },
      );
    await appendAuditEvents(tx, ctx.rules, audit);
  });
}

/**
 * The ways one id sits in a JSON array of strings (`["a","b"]`, as logRead
 * writes it): quoted, between `[` or `,` and `,` or `]`. A quote inside an
 * id is escaped (`\"`), so none of these can match a part of another id.
 */
function jsonArrayNeedles(id: string): string[] {
  const q = JSON.stringify(id);
  return [`[${q},`, `[${q}]`, `,${q},`, `,${q}]`];
}

/**
 * The owner's read-log entries, newest first; with `memoryId`, those that
 * served it (memoryIds is a JSON string property, matched as the id's
 * element in it), with `before`, those before it.
 */
export async function readLog(
  ctx: StoreContext,
  ownerId: string,
  opts: ReadLogQuery,
): Promise<ReadLogEntry[]> {
  const found = await readRows<{ r: Record<string, unknown> }>(
    ctx,
    `MATCH (r:ReadLog {ownerId: $ownerId})
     WHERE ($before IS NULL OR r.at < $before)
       AND ($needles IS NULL OR any(n IN $needles WHERE r.memoryIds CONTAINS n))
     RETURN r {.*} AS r ORDER BY r.at DESC LIMIT $limit`,
    {
      ownerId,
      before: opts.before ?? null,
      needles: opts.memoryId === undefined ? null : jsonArrayNeedles(opts.memoryId),
      limit: int(opts.limit),
    },
  );
  return found.map(({ r }) => ({
    ownerId: String(r.ownerId),
    requestId: String(r.requestId),
    principal: String(r.principal),
    sessionId: r.sessionId === null || r.sessionId === undefined ? null : String(r.sessionId),
    memoryIds: JSON.parse(String(r.memoryIds)) as string[],
    at: String(r.at),
  }));
}

/** The owner's sessions with unexpired messages or memories, latest activity first. */
export async function listSessions(
  ctx: StoreContext,
  ownerId: string,
  opts: { limit: number; now: string },
): Promise<SessionSummary[]> {
  const found = await readRows<{
    sessionId: string;
    messages: unknown;
    memories: unknown;
    firstMs: unknown;
    lastMs: unknown;
  }>(
    ctx,
    `MATCH (s:Session {ownerId: $ownerId})
     OPTIONAL MATCH (x:SessionMessage {ownerId: $ownerId, sessionId: s.id})
       WHERE x.expiresMs > $nowMs
     WITH s, count(x) AS messages, min(x.atMs) AS f1, max(x.atMs) AS l1
     OPTIONAL MATCH (m:Memory)-[:OBSERVED_IN]->(s)
       WHERE m.expiresMs > $nowMs
     WITH s, messages, f1, l1, count(m) AS memories, min(m.createdMs) AS f2, max(m.createdMs) AS l2
     WHERE messages + memories > 0
     WITH s.id AS sessionId, messages, memories,
          CASE WHEN f1 IS NULL OR (f2 IS NOT NULL AND f2 < f1) THEN f2 ELSE f1 END AS firstMs,
          CASE WHEN l1 IS NULL OR (l2 IS NOT NULL AND l2 > l1) THEN l2 ELSE l1 END AS lastMs
     RETURN sessionId, messages, memories, firstMs, lastMs
     ORDER BY lastMs DESC, sessionId LIMIT $limit`,
    { ownerId, nowMs: toMs(opts.now, 'now'), limit: int(Math.max(0, opts.limit)) },
  );
  return found.map((r) => ({
    sessionId: r.sessionId,
    messages: num(r.messages),
    memories: num(r.memories),
    firstAt: new Date(num(r.firstMs)).toISOString(),
    lastAt: new Date(num(r.lastMs)).toISOString(),
  }));
}
