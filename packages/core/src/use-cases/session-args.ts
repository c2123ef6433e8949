// The arguments of the session buffer's use-cases (session.ts): apart from
// their bodies, which load the policy gate, so that the registry reads them
// without it (see registry.ts).
import { z } from 'zod';
import { MESSAGE_ROLES, identifierSchema, storedText } from '../domain/record.ts';
import { OWNER_ID, arg, optionalArg, uncheckedArg } from './define.ts';
import { RecallOptionsSchema } from './recall-args.ts';

export const SessionAppendSchema = z.strictObject({
  messages: z
    .array(
      z.strictObject({
        role: z
          .enum(MESSAGE_ROLES)
          .describe(
            'Who speaks. Each role is open to the caller roles of the policy (caps.sessionBuffer.messageRoles); by default user and assistant need a user or operator key, system an operator key, and tool and agent keys write tool messages only',
          ),
        text: storedText(z.string().trim().min(1).max(32_000)),
      }),
    )
    .min(1)
    .max(100),
  /** Also keep user messages as long-term episodes (through the full write gate). */
  remember: z.boolean().default(false),
});
export type SessionAppendInput = z.input<typeof SessionAppendSchema>;

const SessionIdSchema = identifierSchema('session id');

export const SessionAppendArgs = [
  arg('ownerId', OWNER_ID),
  arg('sessionId', SessionIdSchema),
  arg('input', uncheckedArg(SessionAppendSchema)),
] as const;

export const SessionContextArgs = [
  arg('ownerId', OWNER_ID),
  arg('sessionId', SessionIdSchema),
  /** When given (and not blank), long-term memories are recalled for it. */
  optionalArg('query', z.string().max(4000).optional()),
  optionalArg('options', RecallOptionsSchema.prefault({})),
] as const;

/** A message's seq, as a number or as the digits of a path segment. */
const SeqSchema = z.union(
  [
    z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    z
      .string()
      .regex(/^\d{1,15}$/)
      .transform(Number),
  ],
  { error: 'seq must be a whole number (a message seq from the session context)' },
);

export const DeleteSessionArgs = [
  arg('ownerId', OWNER_ID),
  arg('sessionId', SessionIdSchema),
  optionalArg('seq', SeqSchema.optional()),
] as const;
