// Request schemas of the HTTP API. Bodies that a use-case validates itself
// (memory writes, recall options, session appends) are documented with
// core's own zod schemas but NOT validated by Fastify: validating twice
// would duplicate business rules and skip the engine's side effects (a
// refusal is audited by the engine). Fastify only checks that such a body is
// a JSON object. Parameters, query strings and bodies of use-cases that take
// typed arguments are validated here, for shape only.
import { z } from 'zod';
import {
  AUTHORITIES,
  CorrectionSchema,
  CreateKeySchema,
  ForgetSessionSchema,
  ImportSchema,
  MEMORY_KINDS,
  MemoryInputSchema,
  RecallOptionsSchema,
  SessionAppendSchema,
} from '@keepgraph/core';

const ENGINE_VALIDATED = new WeakSet<object>();

/**
 * Mark a schema as documentation-only: the route's validator checks only
 * that the part is a JSON object and hands it to the engine untouched. The
 * handler sees `unknown` so it cannot rely on unchecked fields.
 */
export function validatedByEngine(schema: z.ZodType): z.ZodType<unknown> {
  ENGINE_VALIDATED.add(schema);
  return schema as z.ZodType<unknown>;
}

export function isValidatedByEngine(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && ENGINE_VALIDATED.has(schema);
}

// --- parameters -------------------------------------------------------------
// Owner ids are checked by the engine (blank -> owner_required), so any
// string is accepted here.

export const OwnerParams = z.object({ ownerId: z.string() });
export const MemoryParams = z.object({ ownerId: z.string(), id: z.string() });
export const KeyParams = z.object({ ownerId: z.string(), key: z.string() });
export const SessionParams = z.object({ ownerId: z.string(), sessionId: z.string() });
/** The engine validates seq (an integer >= 0). */
export const SessionMessageParams = SessionParams.extend({ seq: z.string() });

/** Every write route takes one (the engine checks its form). */
export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe(
      "Sent again within 24 h by the same credential with the same role and owners, once it passes the route's checks, the first answer is replayed (header `Idempotent-Replayed: true`; an error with its status and code only) and nothing is written; with another request, 409 `idempotency_key_reused`",
    ),
});

// --- bodies validated by the engine (documentation only) --------------------

export const MemoryBody = validatedByEngine(
  MemoryInputSchema.describe(
    'A memory to store (owner and role come from the URL and credentials)',
  ),
);

export const CorrectionBody = validatedByEngine(
  CorrectionSchema.describe(
    'The corrected claim and why: a new version that supersedes the old one (or, from a lower authority, is kept beside it as a flagged conflict)',
  ),
);

export const MemoryBatchBody = validatedByEngine(
  z.strictObject({
    memories: z
      .array(MemoryInputSchema)
      .min(1)
      .max(1000)
      .describe('Each item passes the write gate on its own; failures are reported by index'),
  }),
);

export const RecallBody = validatedByEngine(
  RecallOptionsSchema.extend({ query: z.string().describe('What to recall') }).describe(
    'A query plus retrieval options: a recipe name and/or overrides',
  ),
);

export const KvPutBody = validatedByEngine(
  MemoryInputSchema.omit({ key: true, kind: true })
    .extend({ kind: MemoryInputSchema.shape.kind.optional().describe("Defaults to 'kv'") })
    .describe('The value to put under the key from the URL'),
);

export const SessionAppendBody = validatedByEngine(SessionAppendSchema);
export const ImportBody = validatedByEngine(ImportSchema);
export const CreateKeyBody = validatedByEngine(CreateKeySchema);
export const KeyIdParams = z.object({ id: z.string() });

// --- bodies and query strings validated here (shape only) -------------------

const ids = z.array(z.string()).max(10_000);

// Checked by the engine, strictly: a misspelt dryRun is refused
// (invalid_input), never dropped on the way into a deletion.
const dryRun = z
  .boolean()
  .optional()
  .describe(
    'true: answer what would be deleted (the roots, every memory derived from them, the first 500 with their text) and delete nothing',
  );

export const ForgetBody = validatedByEngine(
  z.strictObject({
    ids: ids.describe('Memory ids to forget, with everything derived from them'),
    dryRun,
  }),
);

export const VerifyForgottenBody = z.object({
  ids,
  contentHashes: z.array(z.string()).max(10_000).optional(),
});

export const RevokeSourceBody = validatedByEngine(
  z.strictObject({
    uri: z.string().optional().describe('A URL or document uri named in origins'),
    tool: z.string().optional().describe('A tool name named in origins'),
    dryRun,
  }),
);

/** Strict: a misspelt filter must not answer every read as one memory's blast radius. */
export const ReadLogQuery = z.strictObject({
  memoryId: z.string().optional().describe('Only the reads that served this memory'),
  limit: z.coerce.number().int().optional().describe('Reads, 1 to 1000 (default 100)'),
  before: z
    .string()
    .optional()
    .describe("Only reads strictly before this ISO time (a page's last `at` gives the next page)"),
});

export const SessionContextQuery = z.object({
  query: z.string().optional().describe('When given, long-term memories are recalled for it'),
  recipe: z.string().optional(),
  topK: z.coerce.number().int().optional(),
});

export const ExportQuery = z.object({
  after: z.string().optional().describe('The `next` of the previous page'),
  limit: z.coerce.number().int().optional().describe('Memories a page, 1 to 1000 (default 500)'),
});

const csv = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    )
    .pipe(z.array(z.enum(values)).min(1));
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The list filters as a query string: lists comma-separated, flags `true`/`false`. */
export const ListQuery = z.object({
  kind: csv(MEMORY_KINDS).optional().describe('Kinds, comma-separated'),
  authority: csv(AUTHORITIES).optional().describe('Authorities, comma-separated'),
  tag: z.string().optional(),
  sessionId: z.string().optional().describe('Origin: the session'),
  tool: z.string().optional().describe('Origin: the tool name'),
  sourceUri: z.string().optional().describe('Origin: the URL or document uri'),
  createdAfter: z.string().optional(),
  createdBefore: z.string().optional(),
  observedAfter: z.string().optional(),
  observedBefore: z.string().optional(),
  expiresBefore: z.string().optional(),
  conflict: flag.optional(),
  derived: flag.optional(),
  includeSuperseded: flag.optional().describe('Also superseded versions (operators, analysts)'),
  after: z.string().optional().describe('The `next` of the previous page'),
  limit: z.coerce.number().int().optional().describe('Memories a page, 1 to 500 (default 100)'),
});

export const SessionsQuery = z.object({
  limit: z.coerce.number().int().optional().describe('Sessions, 1 to 1000 (default 100)'),
});

export const SessionMessagesQuery = z.object({
  limit: z.coerce.number().int().optional().describe('The newest this many, 1 to 10000'),
});

export const EntityGraphQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .optional()
    .describe('Relation edges at most, 1 to 5000 (default 500), the best attested first'),
});

export const OwnersQuery = z.object({
  after: z.string().optional().describe('The `next` of the previous page'),
  limit: z.coerce.number().int().optional().describe('Owners a page, 1 to 1000 (default 100)'),
});

export const ForgetSessionBody = validatedByEngine(
  ForgetSessionSchema.describe(
    '`{"dryRun": true}` lists what would go (memories, derived memories, messages) and deletes nothing; `{}` forgets',
  ),
);

export const AuditQuery = z.object({
  ownerId: z.string().optional(),
  afterSeq: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).optional().describe('At most 1000'),
});

export const KpisQuery = z.object({
  ownerId: z
    .string()
    .optional()
    .describe("One owner's figures (a key scoped to some owners must name one)"),
  toleranceMs: z.coerce
    .number()
    .int()
    .optional()
    .describe('How late an expiry may be and count as on schedule'),
});
