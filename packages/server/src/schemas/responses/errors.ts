// Response schemas of the HTTP API: the one error body every failure answers with.
import { z } from 'zod';
import { ERROR_CODES } from '@keepgraph/core';

const str = z.string();
const json = z.record(z.string(), z.unknown());

/** The one error body every failure answers with. */
export const ErrorOut = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: str,
      details: json.optional(),
    }),
  })
  .describe(
    'Every error: a stable code (see the status table), a message for humans, safe details',
  );

/** Response map for a route: its success shape plus the shared error body for 4xx/5xx. */
export function withErrors<S extends Record<number, z.ZodType>>(ok: S) {
  return { ...ok, '4xx': ErrorOut, '5xx': ErrorOut } as const;
}
