// Response schemas of the HTTP API: API keys as lists show them, and a created key.
import { z } from 'zod';
import { ROLES } from '@keepgraph/core';

const str = z.string();

/** An API key as lists show it: never the key, never its hash. */
export const ApiKeyOut = z.object({
  id: str,
  name: str,
  role: z.enum(ROLES),
  owners: z.union([z.literal('all'), z.array(str)]),
  createdAt: str,
  createdBy: str,
  expiresAt: str.nullable(),
  revokedAt: str.nullable(),
  live: z.boolean(),
});

/** A created key: shown this once, with the key itself. */
export const CreatedApiKeyOut = ApiKeyOut.extend({
  key: str.describe('The key: shown only in this answer; store it now'),
});
