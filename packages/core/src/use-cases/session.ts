// The session buffer: the last N exchanges of one session of one owner, with
// a short TTL (policy). Messages pass the session gate (secrets refused,
// personal data redacted or refused) and can also be kept as episodes, in
// which case deleting the episode deletes the buffer copy.
import { z } from 'zod';
import { KeepGraphError } from '../domain/errors.ts';
import { evaluateSessionMessage, evaluateStoredFields, sessionCap } from '../policy/index.ts';
import {
  MessageWriterSchema,
  type SessionMessage,
  type SessionWriter,
} from '../ports/memory-store.ts';
import { auditEvent, parseInput, type Caller, type EngineDeps } from '../services/deps.ts';
import type { ParsedArgs } from './define.ts';
import type { DeleteSessionArgs, SessionAppendArgs, SessionContextArgs } from './session-args.ts';
import { PromptTextSchema, renderContextForPrompt } from '../domain/render-context.ts';
import { RecallResultSchema, recall } from './recall.ts';
import { remember } from './remember.ts';
import { refusalEvent } from '../services/write.ts';
import { MemoryInputSchema } from '../domain/record.ts';

export const SessionAppendResultSchema = z.object({
  appended: z.number().int(),
  trimmed: z.number().int(),
  rememberedIds: z.array(z.string()),
});
export type SessionAppendResult = z.output<typeof SessionAppendResultSchema>;

export async function sessionAppend(
  deps: EngineDeps,
  { ownerId, sessionId, input }: ParsedArgs<typeof SessionAppendArgs>,
  caller: Caller,
): Promise<SessionAppendResult> {
  const cap = sessionCap(deps.policy);
  // Invariant 9: the buffer hands messages back in their roles, so only the
  // callers the policy names may speak as the system, the user, the
  // assistant or a tool: a tool's output appended as a user message would
  // be read as the user's own words.
  for (const m of input.messages) {
    const allowed = cap.messageRoles[m.role];
    if (!allowed.includes(caller.role))
      throw new KeepGraphError(
        'forbidden_role',
        `a ${caller.role} caller may not append ${m.role} messages (policy caps.sessionBuffer.messageRoles)`,
        { role: caller.role, messageRole: m.role, allowed },
      );
  }
  const now = deps.clock.now();
  const at = now.toISOString();

  // The owner and session ids are stored with every message (and in the
  // episodes they become): they pass the gate like any other field.
  // Audited by keyed hash only.
  const idRefusal = await evaluateStoredFields(deps.policy, [
    { path: 'ownerId', value: ownerId },
    { path: 'sessionId', value: sessionId },
  ]);
  if (idRefusal) {
    const refused = idRefusal.details.field === 'ownerId' ? ownerId : sessionId;
    await deps.store.appendAudit([
      refusalEvent(deps, caller, ownerId, idRefusal, {
        contentHashes: [deps.keyedHash(refused)],
        details: {},
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
        refusalEvent(deps, caller, ownerId, d, {
          contentHashes: [deps.keyedHash(m.text)],
          details: { sessionIdHash: deps.keyedHash(sessionId) },
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
        const episode = { kind: 'episode', text: texts[i]!, origin: { sessionId, observedAt: at } };
        const r = await remember(
          deps,
          { ownerId, input: parseInput(MemoryInputSchema, episode) },
          caller,
        );
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
  const writer: SessionWriter = { principal: caller.principal, role: caller.role };
  const messages: SessionMessage[] = input.messages.map((m, i) => ({
    ownerId,
    sessionId,
    role: m.role,
    text: texts[i]!,
    at,
    expiresAt,
    memoryId: rememberedIds[i] ?? null,
    writer,
  }));
  await deps.store.write({
    memories: [],
    supersede: [],
    sessionMessages: messages,
    audit: [
      auditEvent(caller, 'session_append', at, ownerId, {
        // Keyed: a buffer message can be a word or two, and outlives its TTL only here.
        contentHashes: messages.map((m) => deps.keyedHash(m.text)),
        details: { sessionIdHash: deps.keyedHash(sessionId), count: messages.length },
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

export const SessionContextSchema = z.object({
  ownerId: z.string(),
  sessionId: z.string(),
  /**
   * Short-term: the session buffer, oldest first; `seq` names a message to
   * delete, `writer` who appended it (null: stored before writers were
   * recorded).
   */
  session: z.array(
    z.object({
      seq: z.number().int().describe('The message number: DELETE …/messages/{seq} deletes it'),
      role: z.string(),
      text: z.string(),
      at: z.string(),
      writer: MessageWriterSchema,
    }),
  ),
  /** Long-term: recall for the query, if one was given. */
  longTerm: RecallResultSchema.nullable(),
  /**
   * Both, rendered for a prompt as quoted data (invariant 9): every item a
   * JSON string with its origin; third-party memories, tool messages and
   * messages a tool or agent key wrote (or an unknown writer) marked untrusted.
   */
  prompt: PromptTextSchema,
});
export type SessionContext = z.output<typeof SessionContextSchema>;

export async function sessionContext(
  deps: EngineDeps,
  { ownerId, sessionId, query, options: opts }: ParsedArgs<typeof SessionContextArgs>,
  caller: Caller,
): Promise<SessionContext> {
  const cap = sessionCap(deps.policy);
  const now = deps.clock.now().toISOString();
  const messages = await deps.store.sessionMessages(ownerId, sessionId, {
    limit: cap.maxExchanges * 2,
    now,
  });
  const longTerm = query?.trim()
    ? await recall(deps, { ownerId, query: query.trim(), options: { ...opts, sessionId } }, caller)
    : null;
  const session = messages.map((m) => ({
    seq: m.seq ?? 0,
    role: m.role,
    text: m.text,
    at: m.at,
    writer: m.writer,
  }));
  return {
    ownerId,
    sessionId,
    session,
    longTerm,
    prompt: renderContextForPrompt({ session, memories: longTerm?.results ?? [] }),
  };
}

export const SessionDeletionSchema = z.object({
  ownerId: z.string(),
  sessionId: z.string(),
  /** The message deleted, when one was named. */
  seq: z.number().int().nullable(),
  sessionMessagesDeleted: z.number().int(),
});
export type SessionDeletion = z.output<typeof SessionDeletionSchema>;

/**
 * Delete a whole session from the buffer, or one message of it (`seq`). The
 * long-term memories kept from it stay: forgetting those is `forget`.
 * Audited as a deletion with the session id's keyed hash.
 */
export async function deleteSession(
  deps: EngineDeps,
  { ownerId, sessionId, seq }: ParsedArgs<typeof DeleteSessionArgs>,
  caller: Caller,
): Promise<SessionDeletion> {
  const n = await deps.store.deleteSessionMessages(ownerId, {
    sessionId,
    ...(seq !== undefined && { seq }),
  });
  const what =
    seq === undefined ? `session ${sessionId}` : `message ${seq} of session ${sessionId}`;
  if (n === 0) throw new KeepGraphError('not_found', `owner ${ownerId} has no ${what}`);
  await deps.store.appendAudit([
    auditEvent(caller, 'delete', deps.clock.now().toISOString(), ownerId, {
      reason: seq === undefined ? 'session' : 'session_message',
      details: { sessionIdHash: deps.keyedHash(sessionId), sessionMessagesDeleted: n },
    }),
  ]);
  return { ownerId, sessionId, seq: seq ?? null, sessionMessagesDeleted: n };
}
