// The arguments of the API-key use-cases (keys.ts): apart from their
// bodies, which load the policy gate, so that the registry reads them
// without it (see registry.ts).
import { z } from 'zod';
import { OwnerIdSchema, ROLES, identifierSchema, storedText } from '../domain/record.ts';
import { arg, uncheckedArg } from './define.ts';

/** At most this many owners on one key; more is an all-owners key's job. */
export const MAX_KEY_OWNERS = 1_000;

export const CreateKeySchema = z
  .strictObject({
    name: storedText(z.string().trim().min(1).max(100), 'key name').describe(
      'What the key is for, shown in lists',
    ),
    role: z.enum(ROLES),
    owners: z
      .union([z.literal('all'), z.array(OwnerIdSchema).min(1).max(MAX_KEY_OWNERS)])
      .describe('"all", or the owner ids the key may act on'),
    expiresIn: z
      .string()
      .optional()
      .describe('How long the key lives (`90d`, `12h`); without it, until revoked'),
  })
  .refine((k) => k.role !== 'operator' || k.owners === 'all', {
    message: 'an operator key acts on every owner: give owners "all"',
    path: ['owners'],
  });

export const CreateKeyArgs = [arg('input', uncheckedArg(CreateKeySchema))] as const;
export const RevokeKeyArgs = [arg('id', identifierSchema('key id'))] as const;
