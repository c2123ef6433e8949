// A session's own use-cases beyond the buffer: read its messages, and forget
// it whole: its messages, the memories observed in it and everything derived
// from them (the cascade), with a dry run that lists what would go and
// deletes nothing.
import { z } from 'zod';
import { KeepGraphError } from '../domain/errors.ts';
import { sessionCap } from '../policy/index.ts';
import { DeletionReceiptSchema, MessageWriterSchema } from '../ports/memory-store.ts';
import { auditEvent, type Caller, type EngineDeps } from '../services/deps.ts';
import type { ParsedArgs } from './define.ts';
import type { ForgetSessionArgs, ReadSessionArgs } from './session-forget-args.ts';
import { cascade, derivedClosure } from '../services/cascade.ts';

export const SessionMessagesSchema = z.object({
  ownerId: z.string(),
  sessionId: z.string(),
  /**
   * The buffer's unexpired messages, oldest first; `seq` names one to
   * delete, `writer` who appended it (null: stored before writers were
   * recorded).
   */
  messages: z
    .array(
      z.object({
        seq: z.number().int(),
        role: z.string(),
        text: z.string(),
        at: z.string(),
        memoryId: z.string().nullable().describe('The long-term memory that holds a copy, if any'),
        writer: MessageWriterSchema,
      }),
    )
    .describe('Unexpired messages, oldest first'),
});
export type SessionMessages = z.output<typeof SessionMessagesSchema>;

/** A session's messages, oldest first; not_found when it has none. */
export async function readSession(
  deps: EngineDeps,
  { ownerId, sessionId, options }: ParsedArgs<typeof ReadSessionArgs>,
): Promise<SessionMessages> {
  const messages = await deps.store.sessionMessages(ownerId, sessionId, {
    limit: options.limit ?? sessionCap(deps.policy).maxExchanges * 2,
    now: deps.clock.now().toISOString(),
  });
  if (messages.length === 0)
    throw new KeepGraphError(
      'not_found',
      `owner ${ownerId} has no messages in session ${sessionId}`,
    );
  return {
    ownerId,
    sessionId,
    messages: messages.map((m) => ({
      seq: m.seq ?? 0,
      role: m.role,
      text: m.text,
      at: m.at,
      memoryId: m.memoryId,
      writer: m.writer,
    })),
  };
}

export const SessionForgettingSchema = z.object({
  ownerId: z.string(),
  sessionId: z.string(),
  /** True: nothing was deleted; the lists say what would go. */
  dryRun: z.boolean().describe('True: nothing was deleted; the lists say what would go'),
  /** The memories observed in the session (the cascade's roots). */
  observed: z.array(z.string()).describe('Memories observed in the session (the roots)'),
  /** Every memory that goes (went): the roots and all derived from them. */
  memoryIds: z
    .array(z.string())
    .describe('Every memory that goes: the roots and all derived from them'),
  /** Buffer messages that go (went). */
  sessionMessages: z.number().int().describe('Buffer messages that go'),
  /** The cascade's receipt (null on a dry run, or with no memories). */
  receipt: DeletionReceiptSchema.nullable(),
});
export type SessionForgetting = z.output<typeof SessionForgettingSchema>;

export async function forgetSession(
  deps: EngineDeps,
  { ownerId, sessionId, options }: ParsedArgs<typeof ForgetSessionArgs>,
  caller: Caller,
): Promise<SessionForgetting> {
  const observed = await deps.store.observedIn(ownerId, sessionId);
  const now = deps.clock.now().toISOString();
  const messages = (await deps.store.sessionMessages(ownerId, sessionId, { limit: 10_000, now }))
    .length;
  if (observed.length === 0 && messages === 0)
    throw new KeepGraphError(
      'not_found',
      `owner ${ownerId} has no session ${sessionId} (no messages, no memories observed in it)`,
    );
  const base = { ownerId, sessionId, observed };
  if (options.dryRun)
    return {
      ...base,
      dryRun: true,
      memoryIds: await derivedClosure(deps, ownerId, observed),
      sessionMessages: messages,
      receipt: null,
    };
  const sessionIdHash = deps.keyedHash(sessionId);
  const receipt =
    observed.length > 0
      ? await cascade(deps, caller, ownerId, observed, 'forget_session', { sessionIdHash })
      : null;
  // After the cascade (which took the messages that copy its memories): the rest.
  const rest = await deps.store.deleteSessionMessages(ownerId, { sessionId });
  if (rest > 0)
    await deps.store.appendAudit([
      auditEvent(caller, 'delete', deps.clock.now().toISOString(), ownerId, {
        reason: 'session',
        details: { sessionIdHash, sessionMessagesDeleted: rest },
      }),
    ]);
  return {
    ...base,
    dryRun: false,
    memoryIds: receipt?.deletedMemoryIds ?? [],
    sessionMessages: rest + (receipt?.sessionMessagesDeleted ?? 0),
    receipt,
  };
}
