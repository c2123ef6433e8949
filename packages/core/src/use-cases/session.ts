// The session buffer: the last N exchanges of one session of one owner, with
// a short TTL (policy). Messages pass the session gate (secrets refused,
// personal data redacted or refused) and can also be kept as episodes, in
// which case deleting the episode deletes the buffer copy.
import { z } from 'zod';
import { contentHash } from '../audit.ts';
import { KeepGraphError } from '../errors.ts';
import { evaluateSessionMessage, evaluateStoredFields, sessionCap } from '../policy/index.ts';
import type { SessionMessage } from '../ports/memory-store.ts';
import {
  auditEvent,
  checkCaller,
  checkOwner,
  parseInput,
  type Caller,
  type EngineDeps,
} from './deps.ts';
import { recall, type RecallOptions, type RecallResult } from './recall.ts';
import { remember } from './remember.ts';

export const SessionAppendSchema = z.strictObject({
  messages: z
    .array(
      z.strictObject({
        role: z.enum(['user', 'assistant', 'system', 'tool']),
        text: z.string().trim().min(1).max(32_000),
      }),
    )
    .min(1)
    .max(100),
  /** Also keep user messages as long-term episodes (through the full write gate). */
  remember: z.boolean().default(false),
});
export type SessionAppendInput = z.input<typeof SessionAppendSchema>;

const SessionIdSchema = z.string().trim().min(1, 'session id must not be blank').max(256);

export interface SessionAppendResult {
  appended: number;
  trimmed: number;
  rememberedIds: string[];
}

export async function sessionAppend(
  deps: EngineDeps,
  caller: Caller,
  ownerIdRaw: unknown,
  sessionIdRaw: unknown,
  raw: unknown,
): Promise<SessionAppendResult> {
  checkCaller(caller);
  const ownerId = checkOwner(ownerIdRaw);
  const sessionId = parseInput(SessionIdSchema, sessionIdRaw);
  const input = parseInput(SessionAppendSchema, raw);
  const cap = sessionCap(deps.policy);
  const now = deps.clock.now();
  const at = now.toISOString();

  // The session id is stored with every message (and in the episodes it
  // becomes): it passes the gate like any other field. Audited by hash only.
  const idRefusal = await evaluateStoredFields(deps.policy, [{ path: 'sessionId', value: sessionId }]);
  if (idRefusal) {
    await deps.store.appendAudit([
      auditEvent(caller, 'refuse', at, ownerId, {
        contentHashes: [contentHash(sessionId)],
        reason: idRefusal.code,
        details: { field: 'sessionId' },
      }),
    ]);
    throw new KeepGraphError(idRefusal.code, idRefusal.message, idRefusal.details);
  }

  // Gate every message first: one refusal refuses the whole append.
  const texts: string[] = [];
  for (const m of input.messages) {
    const d = await evaluateSessionMessage(deps.policy, m.text);
    if (!d.ok) {
      await deps.store.appendAudit([
        auditEvent(caller, 'refuse', at, ownerId, {
          contentHashes: [contentHash(m.text)],
          reason: d.code,
          details: { sessionId },
        }),
      ]);
      throw new KeepGraphError(d.code, d.message, d.details);
    }
    texts.push(d.text);
  }

  const rememberedIds: (string | null)[] = [];
  for (const [i, m] of input.messages.entries()) {
    if (input.remember && m.role === 'user') {
      try {
        const r = await remember(deps, caller, ownerId, {
          kind: 'episode',
          text: texts[i]!,
          origin: { sessionId, observedAt: at },
        });
        rememberedIds.push(r.memory.id);
        continue;
      } catch (e) {
        // Too short or a pleasantry is fine in a conversation, not as memory.
        if (!(e instanceof KeepGraphError && e.code.startsWith('refused_'))) throw e;
      }
    }
    rememberedIds.push(null);
  }

  const expiresAt = new Date(now.getTime() + cap.ttlSeconds * 1000).toISOString();
  const messages: SessionMessage[] = input.messages.map((m, i) => ({
    ownerId,
    sessionId,
    role: m.role,
    text: texts[i]!,
    at,
    expiresAt,
    memoryId: rememberedIds[i] ?? null,
  }));
  await deps.store.write({
    memories: [],
    supersede: [],
    sessionMessages: messages,
    audit: [
      auditEvent(caller, 'session_append', at, ownerId, {
        contentHashes: messages.map((m) => contentHash(m.text)),
        details: { sessionId, count: messages.length },
      }),
    ],
  });
  // An exchange is a user message and its answer.
  const trimmed = await deps.store.trimSession(ownerId, sessionId, cap.maxExchanges * 2);
  return {
    appended: messages.length,
    trimmed,
    rememberedIds: rememberedIds.filter((x): x is string => x !== null),
  };
}

export interface SessionContext {
  ownerId: string;
  sessionId: string;
  /** Short-term: the session buffer, oldest first. */
  session: { role: string; text: string; at: string }[];
  /** Long-term: recall for the query, if one was given. */
  longTerm: RecallResult | null;
}

export async function sessionContext(
  deps: EngineDeps,
  caller: Caller,
  ownerIdRaw: unknown,
  sessionIdRaw: unknown,
  query?: string,
  opts: RecallOptions = {},
): Promise<SessionContext> {
  checkCaller(caller);
  const ownerId = checkOwner(ownerIdRaw);
  const sessionId = parseInput(SessionIdSchema, sessionIdRaw);
  const cap = sessionCap(deps.policy);
  const now = deps.clock.now().toISOString();
  const messages = await deps.store.sessionMessages(ownerId, sessionId, {
    limit: cap.maxExchanges * 2,
    now,
  });
  const longTerm = query?.trim()
    ? await recall(deps, caller, ownerId, query, { ...opts, sessionId })
    : null;
  return {
    ownerId,
    sessionId,
    session: messages.map((m) => ({ role: m.role, text: m.text, at: m.at })),
    longTerm,
  };
}
