// The arguments of reading and forgetting a session (session-forget.ts):
// apart from their bodies, which load the policy gate, so that the registry
// reads them without it (see registry.ts).
import { z } from 'zod';
import { identifierSchema } from '../domain/record.ts';
import { OWNER_ID, arg, optionalArg, uncheckedArg } from './define.ts';

const SessionIdSchema = identifierSchema('session id');

export const ReadSessionArgs = [
  arg('ownerId', OWNER_ID),
  arg('sessionId', SessionIdSchema),
  optionalArg(
    'options',
    z
      .strictObject({
        /** The newest this many (the buffer holds at most the policy's cap). */
        limit: z.number().int().min(1).max(10_000).optional(),
      })
      .prefault({}),
  ),
] as const;

export const ForgetSessionSchema = z.strictObject({
  /** List what would go and delete nothing. */
  dryRun: z.boolean().default(false),
});

export const ForgetSessionArgs = [
  arg('ownerId', OWNER_ID),
  arg('sessionId', SessionIdSchema),
  // Strict, and checked here whatever the interface: a misspelt dryRun must
  // not delete a session.
  optionalArg('options', uncheckedArg(ForgetSessionSchema.prefault({}))),
] as const;
