// The arguments of correct (correct.ts): apart from its body, which loads
// the policy gate, so that the registry reads them without it (see
// registry.ts).
import { z } from 'zod';
import {
  AUTHORITIES,
  MAX_TEXT_CHARS,
  OriginSchema,
  TagSchema,
  isoTime,
  storedText,
} from '../domain/record.ts';
import { IdSchema } from '../services/deps.ts';
import { OWNER_ID, arg, uncheckedArg } from './define.ts';

/**
 * Why a memory is corrected. A code, not free text: the audit log keeps ids,
 * hashes and codes, never words a user typed.
 */
export const CORRECTION_REASONS = ['incorrect', 'outdated', 'incomplete', 'other'] as const;

export const CorrectionSchema = z.strictObject({
  /** The corrected claim. */
  text: storedText(z.string().min(1).max(MAX_TEXT_CHARS)),
  reason: z.enum(CORRECTION_REASONS),
  /** The correction's authority: the caller's role's default unless given (never above it). */
  authority: z.enum(AUTHORITIES).optional(),
  /** Where the correction comes from; the old version's origin unless given. */
  origin: OriginSchema.optional(),
  tags: z.array(TagSchema).max(32).optional(),
  /**
   * What the correction rests on, besides the old version's sources: an
   * agent's correction is inferred, so it names its evidence (the gate's
   * `sources.requireDerivedFrom`).
   */
  derivedFrom: z.array(z.string().min(1).max(64)).max(10_000).optional(),
  ttlSeconds: z.number().int().positive().optional(),
  validFrom: isoTime.optional(),
});
export type CorrectionInput = z.input<typeof CorrectionSchema>;

export const CorrectArgs = [
  arg('ownerId', OWNER_ID),
  arg('id', IdSchema),
  arg('correction', uncheckedArg(CorrectionSchema)),
] as const;
