// The arguments of import (import.ts): apart from its body, which loads
// the policy gate (it writes through rememberMany), so that the registry
// reads them without it (see registry.ts).
import { z } from 'zod';
import { OWNER_ID, arg, uncheckedArg } from './define.ts';

/** Lines one call takes at most (a file is sent in chunks). */
export const MAX_IMPORT_LINES = 10_000;

export const ImportSchema = z.strictObject({
  lines: z.array(z.string().max(256 * 1024)).max(MAX_IMPORT_LINES),
  /**
   * The number of the first line, for the report (a chunk of a file).
   * Default 1. Bounded so that every line's number is a safe integer.
   */
  firstLine: z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER - MAX_IMPORT_LINES)
    .default(1),
});

export const ImportArgs = [
  arg('ownerId', OWNER_ID),
  arg('input', uncheckedArg(ImportSchema)),
] as const;
