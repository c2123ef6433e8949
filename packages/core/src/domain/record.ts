// The memory record: what KeepGraph stores, and the zod schemas that validate
// what callers send. Stored records are plain JSON-able objects so that every
// store can hand back a structural copy (invariant 5, "copies out").
import { z } from 'zod';

export const MEMORY_KINDS = [
  'episode',
  'fact',
  'preference',
  'constraint',
  'goal',
  'rule',
  'summary',
  'profile',
  'kv',
] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** Kinds that are produced from other memories and must name their sources (policy floor). */
export const DERIVED_KINDS: readonly MemoryKind[] = ['summary', 'rule'];

/** Who vouches for a claim, highest first. */
export const AUTHORITIES = ['operator', 'user', 'tool', 'agent_inferred', 'third_party'] as const;
export type Authority = (typeof AUTHORITIES)[number];

/** Higher number, more authority. */
export const AUTHORITY_RANK: Readonly<Record<Authority, number>> = {
  operator: 5,
  user: 4,
  tool: 3,
  agent_inferred: 2,
  third_party: 1,
};

/**
 * The caller's role, taken from credentials (an API key or a JWT; the local
 * CLI is its data directory's operator), never from a request body. An
 * analyst reads and writes nothing: see the registry's role sets.
 */
export const ROLES = ['operator', 'analyst', 'user', 'tool', 'agent'] as const;
export type Role = (typeof ROLES)[number];

/** The roles a session message speaks in (not a caller's role: see ROLES). */
export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** The roles that write memories (an analyst writes nothing). */
export type WriterRole = Exclude<Role, 'analyst'>;

/**
 * The highest authority each role may write. An agent writes only its own
 * inferences (or third-party content): it cannot dress an inference up as a
 * tool result, nor write user or operator claims.
 */
export const ROLE_MAX_AUTHORITY: Readonly<Record<WriterRole, Authority>> = {
  operator: 'operator',
  user: 'user',
  tool: 'tool',
  agent: 'agent_inferred',
};

/** The authority written when the caller names none. */
export const ROLE_DEFAULT_AUTHORITY: Readonly<Record<WriterRole, Authority>> = {
  operator: 'operator',
  user: 'user',
  tool: 'tool',
  agent: 'agent_inferred',
};

export const SENSITIVITIES = ['low', 'medium', 'high'] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];

export const SOURCE_KINDS = ['url', 'document', 'tool'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The longest identifier (owner id, session id, key, memory id), in characters after NFC, on every interface. */
export const MAX_OWNER_ID_CHARS = 256;
/**
 * An identifier names one thing: it is NFC-normalised (two spellings of
 * "élève" are one owner) and never trimmed. Surrounding whitespace, control
 * and invisible format characters and lone surrogates are refused rather
 * than stripped or replaced, so "\tann " can never reach owner "ann", and an
 * id is stored exactly as it was matched.
 *
 * `.` and `..` are refused too: every id is a URL path segment somewhere
 * (HTTP routes, MCP resource URIs), and URL parsers remove those segments,
 * `%2E%2E` included (WHATWG URL, so `fetch` and every browser), so a call
 * about session `..` of owner `zed` would reach `/owners/zed/...` instead.
 */
export function identifierSchema(what: string) {
  return z
    .string({ error: `${what} must be a string` })
    .refine((s) => s.trim().length > 0, `${what} must not be blank`)
    .transform((s) => s.normalize('NFC'))
    .refine((s) => s === s.trim(), `${what} must not start or end with whitespace`)
    .refine(
      (s) => !/[\p{Cc}\p{Cf}\p{Cs}]/u.test(s),
      `${what} must not hold control or invisible characters or lone surrogates`,
    )
    .refine((s) => s !== '.' && s !== '..', `${what} must not be "." or ".."`)
    .refine(
      (s) => [...s].length <= MAX_OWNER_ID_CHARS,
      `${what} must be at most ${MAX_OWNER_ID_CHARS} characters`,
    );
}
export const OwnerIdSchema = identifierSchema('owner id');

/**
 * The control characters stored text may not hold: C0 but tab, line feed
 * and carriage return, and DEL. NUL ends a string in C-based readers
 * (drivers, tokenizers, other databases a backup is loaded into), and the
 * rest have no place in words: stored text is printed raw by the CLI, where
 * ESC starts a terminal escape that can rewrite or hide what an operator
 * reads, backspace hides text, and vertical tab and form feed end a line
 * for some readers and not others. Refused, not stripped: what is stored
 * (and hashed) is what the caller sent (a field that trims its ends trims
 * vertical tab and form feed there as the whitespace they are). C1 controls (U+0080-U+009F) stay
 * allowed: they turn up in real text mis-decoded from Windows-1252, and
 * UTF-8 terminals do not act on them.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is its purpose
export const STORED_TEXT_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** Refuse the control characters of STORED_TEXT_CONTROLS in a stored text field. */
export function storedText<S extends z.ZodString>(schema: S, what = 'text'): S {
  return schema.refine(
    (s) => !STORED_TEXT_CONTROLS.test(s),
    `${what} must not hold control characters (NUL, ESC and the like; tab and line breaks are fine)`,
  );
}

const shortText = storedText(z.string().trim().min(1).max(512));
export const isoTime = z.iso.datetime({ offset: true });

export const ExtractorInfoSchema = z.strictObject({
  name: shortText,
  version: shortText,
  model: shortText.optional(),
  promptVersion: shortText.optional(),
});
export type ExtractorInfo = z.infer<typeof ExtractorInfoSchema>;

/** Where a claim came from, as structured fields. */
export const OriginSchema = z
  .strictObject({
    sessionId: identifierSchema('origin.sessionId').optional(),
    turn: shortText.optional(),
    messageId: shortText.optional(),
    speaker: shortText.optional(),
    tool: z.strictObject({ name: shortText, callId: shortText.optional() }).optional(),
    source: z
      .strictObject({
        kind: z.enum(SOURCE_KINDS),
        uri: storedText(z.string().trim().min(1).max(2048), 'source uri'),
      })
      .optional(),
    observedAt: isoTime.optional(),
    extractor: ExtractorInfoSchema.optional(),
  })
  .refine((o) => Object.values(o).some((v) => v !== undefined), {
    message: 'origin must name at least one of sessionId, turn, messageId, tool, source, extractor',
  });
export type OriginInput = z.infer<typeof OriginSchema>;

/**
 * The stored origin: the input plus who wrote it and when it was observed.
 * Declared once: the HTTP answer's schema, the SDKs' model and the
 * TypeScript type (`OriginSchema` is the input a caller sends).
 */
export const StoredOriginSchema = z.object({
  sessionId: z.string().optional(),
  turn: z.string().optional(),
  messageId: z.string().optional(),
  speaker: z.string().optional(),
  tool: z.object({ name: z.string(), callId: z.string().optional() }).optional(),
  source: z.object({ kind: z.enum(SOURCE_KINDS), uri: z.string() }).optional(),
  observedAt: z.string().describe('When the claim was observed (ISO 8601)'),
  extractor: z
    .object({
      name: z.string(),
      version: z.string(),
      model: z.string().optional(),
      promptVersion: z.string().optional(),
    })
    .optional(),
  /** The principal that wrote the memory (from credentials). */
  writtenBy: z.string().describe('Principal that wrote the memory (from credentials)'),
});
export type Origin = z.output<typeof StoredOriginSchema>;

export const ENTITY_TYPE = storedText(z.string().trim().min(1).max(64), 'entity type');
export const RELATION_TYPE = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'relation type must be UPPER_SNAKE_CASE, e.g. PREFERS_AGAINST');

export const EntityRefSchema = z.strictObject({
  name: storedText(z.string().trim().min(1).max(200), 'entity name'),
  type: ENTITY_TYPE.default('thing'),
});
export type EntityRef = z.infer<typeof EntityRefSchema>;

export const RelationInputSchema = z.strictObject({
  subject: EntityRefSchema,
  type: RELATION_TYPE,
  object: EntityRefSchema,
  reason: storedText(z.string().trim().min(1).max(1000), 'relation reason').optional(),
});
export type RelationInput = z.infer<typeof RelationInputSchema>;

/** Upper bound on text accepted at the edge; the policy may set a lower one. */
export const MAX_TEXT_CHARS = 32_000;

/** One tag of a memory. */
export const TagSchema = storedText(z.string().trim().min(1).max(64), 'tag');

/** What a caller sends to `remember`. Owner and role come separately. */
export const MemoryInputSchema = z.strictObject({
  kind: z.enum(MEMORY_KINDS),
  text: storedText(z.string().max(MAX_TEXT_CHARS)),
  origin: OriginSchema,
  authority: z.enum(AUTHORITIES).optional(),
  key: identifierSchema('key').optional(),
  tags: z.array(TagSchema).max(32).default([]),
  confidence: z.number().min(0).max(1).default(1),
  sensitivity: z.enum(SENSITIVITIES).default('low'),
  /** Seconds until expiry; the policy supplies a default and bounds. */
  ttlSeconds: z.number().int().positive().optional(),
  validFrom: isoTime.optional(),
  /** Ids of the memories this one was derived from (same owner). */
  derivedFrom: z.array(z.string().min(1).max(64)).max(10_000).default([]),
  about: z.array(EntityRefSchema).max(64).default([]),
  relations: z.array(RelationInputSchema).max(64).default([]),
  /** Operator only: keep a derived memory past its earliest source's expiry. */
  confirmExpiry: z.boolean().optional(),
});
export type MemoryInput = z.input<typeof MemoryInputSchema>;
export type ParsedMemoryInput = z.output<typeof MemoryInputSchema>;

/** An entity as a stored memory names it (its type defaulted when written). */
const StoredEntityRefSchema = z.object({ name: z.string(), type: z.string() });

/** A stored memory. Plain data; stores return fresh copies. */
export const MemorySchema = z
  .object({
    id: z.string(),
    ownerId: z.string(),
    kind: z.enum(MEMORY_KINDS),
    text: z.string(),
    key: z.string().nullable(),
    origin: StoredOriginSchema,
    /** For derived memories: the union of their sources' origins (no laundering). */
    sourceOrigins: z
      .array(StoredOriginSchema)
      .describe('For derived memories: the union of their sources\u2019 origins'),
    authority: z.enum(AUTHORITIES),
    createdAt: z.string(),
    validFrom: z.string(),
    /** Set when superseded or corrected; null while current. */
    validTo: z.string().nullable(),
    expiresAt: z.string(),
    sensitivity: z.enum(SENSITIVITIES),
    tags: z.array(z.string()),
    confidence: z.number(),
    contentHash: z.string(),
    derivedFrom: z.array(z.string()),
    supersedes: z.string().nullable(),
    supersededBy: z.string().nullable(),
    /** A claim kept next to a higher-authority one it contradicts. */
    conflict: z
      .boolean()
      .describe('A lower-authority claim kept beside a higher one it contradicts'),
    about: z.array(StoredEntityRefSchema),
    relations: z.array(
      z.object({
        subject: StoredEntityRefSchema,
        type: z.string(),
        object: StoredEntityRefSchema,
        reason: z.string().optional(),
      }),
    ),
    embeddingModel: z.string().nullable(),
    /** Redactions the policy applied, by kind (no content). */
    redactions: z.array(z.string()),
  })
  .describe('A stored memory (a copy)');
export type Memory = z.output<typeof MemorySchema>;

/** Deep copy through JSON: memories are plain data by construction. */
export function copyMemory<T extends Memory | Memory[]>(m: T): T {
  return structuredClone(m);
}
