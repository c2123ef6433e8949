// Response schemas of the HTTP API: the error responses of a route. The
// error body itself is core's (ErrorBodySchema).
import type { z } from 'zod';
import { ErrorBodySchema } from '@keepgraph/core';

/** Response map for a route: its success shape plus the shared error body for 4xx/5xx. */
export function withErrors<S extends Record<number, z.ZodType>>(ok: S) {
  return { ...ok, '4xx': ErrorBodySchema, '5xx': ErrorBodySchema } as const;
}
