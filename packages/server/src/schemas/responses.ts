// Response schemas of the HTTP API: the shapes the engine returns, written
// as zod so that fastify-type-provider-zod serialises them and
// @fastify/swagger documents them. Core declares these results as TypeScript
// interfaces; the `Same<...>` checks at the bottom make tsc fail if a schema
// here drifts from core's type (the serializer would otherwise drop fields).
import { z } from 'zod';
import {
  AUDIT_TYPES,
  ROLES,
  AUTHORITIES,
  DELETION_REASONS,
  JOB_NAMES,
  MEMORY_KINDS,
  SENSITIVITIES,
  SOURCE_KINDS,
  type AuditEvent,
  type AuditVerification,
  type DeletionPreview,
  type DeletionReceipt,
  type ErrorCode,
  type ExpiryRun,
  type ExportPage,
  type ForgottenCheck,
  type Kpis,
  type Memory,
  type OwnerPage,
  type QueueMetrics,
  type ReadLogPage,
  type RecallResult,
  type RememberManyResult,
  type RememberResult,
  type SerializedGraph,
  type SessionAppendResult,
  type SessionContext,
  type SessionDeletion,
  type SessionForgetting,
  type CorrectionResult,
  type SessionMessages,
  type WhyResult,
  type WhoAmI,
  ERROR_CODES,
} from '@keepgraph/core';

const str = z.string();
const json = z.record(z.string(), z.unknown());

export const OriginOut = z.object({
  sessionId: str.optional(),
  turn: str.optional(),
  messageId: str.optional(),
  speaker: str.optional(),
  tool: z.object({ name: str, callId: str.optional() }).optional(),
  source: z.object({ kind: z.enum(SOURCE_KINDS), uri: str }).optional(),
  observedAt: str.describe('When the claim was observed (ISO 8601)'),
  extractor: z
    .object({ name: str, version: str, model: str.optional(), promptVersion: str.optional() })
    .optional(),
  writtenBy: str.describe('Principal that wrote the memory (from credentials)'),
});

const EntityRefOut = z.object({ name: str, type: str });

export const MemoryOut = z
  .object({
    id: str,
    ownerId: str,
    kind: z.enum(MEMORY_KINDS),
    text: str,
    key: str.nullable(),
    origin: OriginOut,
    sourceOrigins: z
      .array(OriginOut)
      .describe('For derived memories: the union of their sources\u2019 origins'),
    authority: z.enum(AUTHORITIES),
    createdAt: str,
    validFrom: str,
    validTo: str.nullable(),
    expiresAt: str,
    sensitivity: z.enum(SENSITIVITIES),
    tags: z.array(str),
    confidence: z.number(),
    contentHash: str,
    derivedFrom: z.array(str),
    supersedes: str.nullable(),
    supersededBy: str.nullable(),
    conflict: z
      .boolean()
      .describe('A lower-authority claim kept beside a higher one it contradicts'),
    about: z.array(EntityRefOut),
    relations: z.array(
      z.object({ subject: EntityRefOut, type: str, object: EntityRefOut, reason: str.optional() }),
    ),
    embeddingModel: str.nullable(),
    redactions: z.array(str),
  })
  .describe('A stored memory (a copy)');

export const RememberOut = z.object({
  memory: MemoryOut,
  superseded: str.nullable().describe('Id of the memory this write superseded (same key)'),
});

export const RememberManyOut = z.object({
  stored: z.array(MemoryOut),
  failed: z.array(z.object({ index: z.number().int(), code: str, message: str })),
});

const retrieverScores = z.object({
  vector: z.number().optional(),
  text: z.number().optional(),
  entity: z.number().optional(),
  derived: z.number().optional(),
  reply: z.number().optional(),
  via: z.number().optional(),
});

export const RecallOut = z.object({
  requestId: str,
  ownerId: str,
  query: str,
  results: z.array(
    z.object({
      memory: MemoryOut,
      origin: OriginOut,
      sourceOrigins: z.array(OriginOut),
      authority: z.enum(AUTHORITIES),
      derivedFrom: z.array(str),
      via: z.array(str),
      score: z.number(),
      breakdown: z.object({
        ranks: retrieverScores,
        raw: retrieverScores,
        fused: z.number(),
        authority: z.number(),
        recency: z.number(),
        confidence: z.number(),
        time: z.number(),
        speaker: z.number(),
        final: z.number(),
      }),
    }),
  ),
});

export const SerializedGraphOut = z
  .object({
    attributes: json,
    options: z.object({
      type: z.literal('directed'),
      multi: z.literal(false),
      allowSelfLoops: z.literal(false),
    }),
    nodes: z.array(z.object({ key: str, attributes: json })),
    edges: z.array(z.object({ key: str, source: str, target: str, attributes: json })),
  })
  .describe("graphology's serialisation format: load it with Graph.from()");

/** A memory as a node of a graph read (lineage, neighbours): its key is the memory id. */
export const MemoryNodeOut = z.object({
  nodeType: z.literal('memory'),
  kind: z.enum(MEMORY_KINDS),
  text: str,
  authority: z.enum(AUTHORITIES),
  origin: OriginOut,
  sourceOrigins: z
    .array(OriginOut)
    .describe("A derived memory's sources' origins: the first 20 (`get` has them all)"),
  sourceOriginCount: z.number().int().describe('How many origins its sources have in all'),
  createdAt: str,
  expiresAt: str,
  contentHash: str,
  supersededBy: str.nullable(),
  conflict: z.boolean(),
});

/** An entity as a node: its key is `entity:<normalised name>`. */
export const EntityNodeOut = z.object({
  nodeType: z.literal('entity'),
  name: str.describe('One spelling of the name'),
  entityType: str
    .optional()
    .describe('The entity type (person, place, thing...), absent when its names disagree'),
});

/** An entity relation edge, subject to object, with the memories asserting it. */
export const RelationEdgeOut = z.object({
  type: str.describe('The relation, e.g. PREFERS_AGAINST'),
  reasons: z.array(str).describe('The reasons its assertions give'),
  assertedBy: z.array(str).describe('Ids of the memories asserting it'),
});

/** graphology's format for graphs in which a pair of nodes may hold several edges. */
function multiGraphOut<A extends z.ZodType, N extends z.ZodType, E extends z.ZodType>(
  attributes: A,
  node: N,
  edge: E,
) {
  return z
    .object({
      attributes,
      options: z.object({
        type: z.literal('directed'),
        multi: z.literal(true),
        allowSelfLoops: z.literal(false),
      }),
      nodes: z.array(z.object({ key: str, attributes: node })),
      edges: z.array(z.object({ key: str, source: str, target: str, attributes: edge })),
    })
    .describe("graphology's serialisation format: load it with Graph.from()");
}

export const NeighboursOut = multiGraphOut(
  z.object({
    root: str.describe('The memory asked about'),
    ownerId: str,
    truncated: z
      .boolean()
      .describe("Whether memories around it were left out at the policy's limits.graphNodes"),
  }),
  z.discriminatedUnion('nodeType', [MemoryNodeOut, EntityNodeOut]),
  // The relation shape first: a relation named like a structural edge keeps its evidence.
  z.union([
    RelationEdgeOut,
    z.object({
      type: z
        .enum(['DERIVED_FROM', 'SUPERSEDES', 'ASSERTS'])
        .describe(
          'DERIVED_FROM: derived memory to source; SUPERSEDES: newer version to older; ASSERTS: memory to an entity it relates',
        ),
    }),
  ]),
);

export const EntityGraphOut = multiGraphOut(
  z.object({
    ownerId: str,
    truncated: z.boolean().describe('True when relation edges were left out at the limit'),
  }),
  EntityNodeOut,
  RelationEdgeOut,
);

export const WhoAmIOut = z.object({
  principal: str.describe(
    '`key:<id>` for an API key, `jwt:<sub>` for a JWT (`jwt:sha256:<hex>` for a sub over 200 characters)',
  ),
  role: z.enum(ROLES),
  owners: z
    .union([z.literal('all'), z.array(str)])
    .describe('The owners the credential may act on; `all` for every owner (as keys say it)'),
  expiresAt: str.nullable().describe('When the credential stops authenticating; null: never'),
});

export const OwnerPageOut = z.object({
  owners: z.array(
    z.object({
      ownerId: str,
      memories: z.number().int().describe('Memories stored for it'),
    }),
  ),
  next: str.nullable().describe('Pass as `after` for the next page; null on the last'),
});

const PromptOut = str.describe(
  'The same results rendered for an LLM prompt as quoted data: each item a JSON string with its origin; third-party memories and tool messages carry untrusted="true"',
);

export const WhyOut = RecallOut.extend({
  lineage: z.record(z.string(), SerializedGraphOut),
  prompt: PromptOut,
});

export const ReceiptOut = z
  .object({
    ownerId: str,
    reason: z.enum(DELETION_REASONS),
    requested: z.array(str),
    deletedMemoryIds: z.array(str),
    deletedContentHashes: z.array(str),
    embeddingsDeleted: z.number(),
    fullTextEntriesDeleted: z.number(),
    relationEdgesDeleted: z.number(),
    entitiesDeleted: z.number(),
    sessionMessagesDeleted: z.number(),
    rederive: z.array(
      z.object({
        id: str,
        kind: z.enum(MEMORY_KINDS),
        tags: z.array(str),
        survivingSourceCount: z
          .number()
          .int()
          .describe('How many of its sources survive: its re-derivation reads them'),
      }),
    ),
    at: str,
  })
  .describe('What a deletion cascade removed (ids and hashes, never content)');

export const DeletionPreviewOut = z
  .object({
    ownerId: str,
    reason: z.enum(['forget', 'revoke_source']),
    dryRun: z.literal(true),
    requested: z
      .array(str)
      .describe('The roots: the ids asked for, or the memories naming the source'),
    memoryIds: z
      .array(str)
      .describe('Every memory that would go: the roots held and all derived from them, sorted'),
    memories: z
      .array(
        z.object({
          id: str,
          kind: z.enum(MEMORY_KINDS),
          authority: z.enum(AUTHORITIES),
          text: str,
          derived: z.boolean().describe('False for a root'),
        }),
      )
      .describe('The first 500 of them, roots first'),
  })
  .describe('A dry run: what the cascade would delete; nothing was deleted or audited');

/** Forget's and revoke-source's answer: the receipt, or with `dryRun: true` the preview. */
export const ReceiptOrPreviewOut = z.union([ReceiptOut, DeletionPreviewOut]);

export const CorrectionOut = z.object({
  memory: MemoryOut.describe('The new version'),
  corrected: str.describe('The id of the version corrected'),
  superseded: z
    .boolean()
    .describe('True when the new version supersedes the old; false when kept as a conflict'),
  rederiving: z
    .array(str)
    .describe(
      'Memories derived from the old version: deleted, and re-derived from the new one by a job',
    ),
  receipt: ReceiptOut.nullable().describe('The cascade that took them, if any'),
});

export const ForgottenOut = z.object({
  forgotten: z.boolean(),
  traces: z.array(z.object({ where: str, id: str.optional(), detail: str.optional() })),
  scope: z
    .object({ ownerId: str })
    .describe("Only this owner's data was searched: another owner's id reads as forgotten"),
});

export const ExportPageOut = z.object({
  ownerId: str,
  memories: z.array(MemoryOut).describe('Held memories, oldest first'),
  next: str.nullable().describe('Pass as `after` for the next page; null after the last'),
});

export const MemoryPageOut = z.object({
  ownerId: str,
  memories: z.array(MemoryOut).describe('The matches, in id order'),
  next: str
    .nullable()
    .describe('Pass as `after` for the next page; null once every memory has been read'),
});

export const SessionsOut = z.object({
  ownerId: str,
  sessions: z.array(
    z.object({
      sessionId: str,
      messages: z.number().int().describe('Unexpired messages in its buffer'),
      memories: z.number().int().describe('Unexpired memories observed in it'),
      firstAt: str,
      lastAt: str,
    }),
  ),
});

export const ImportOut = z.object({
  lines: z.number().int().describe('Non-blank lines read'),
  imported: z.number().int(),
  refused: z.number().int(),
  refusedByCode: z.record(z.string(), z.number().int()),
  skippedDerived: z
    .number()
    .int()
    .describe('Exported derived memories left out: their sources get new ids'),
  failures: z.array(z.object({ line: z.number().int(), code: str, message: str })),
  stored: z.array(z.object({ line: z.number().int(), id: str })),
});

export const KvOut = z.object({ current: MemoryOut.nullable(), conflicts: z.array(MemoryOut) });

export const SessionAppendOut = z.object({
  appended: z.number().int(),
  trimmed: z.number().int(),
  rememberedIds: z.array(str),
});

export const SessionWriterOut = z
  .object({
    principal: str.describe(
      'The principal of the credentials that appended it (`key:<id>`, `jwt:<sub>`)',
    ),
    role: z.enum(ROLES).describe("That credential's role"),
  })
  .nullable()
  .describe(
    'Who appended the message; null for a message stored before writers were recorded (rendered untrusted)',
  );

export const SessionContextOut = z.object({
  ownerId: str,
  sessionId: str,
  session: z.array(
    z.object({
      seq: z.number().int().describe('The message number: DELETE …/messages/{seq} deletes it'),
      role: str,
      text: str,
      at: str,
      writer: SessionWriterOut,
    }),
  ),
  longTerm: RecallOut.nullable(),
  prompt: PromptOut,
});

export const SessionDeletionOut = z.object({
  ownerId: str,
  sessionId: str,
  seq: z.number().int().nullable(),
  sessionMessagesDeleted: z.number().int(),
});

export const SessionMessagesOut = z.object({
  ownerId: str,
  sessionId: str,
  messages: z
    .array(
      z.object({
        seq: z.number().int(),
        role: str,
        text: str,
        at: str,
        memoryId: str.nullable().describe('The long-term memory that holds a copy, if any'),
        writer: SessionWriterOut,
      }),
    )
    .describe('Unexpired messages, oldest first'),
});

export const SessionForgettingOut = z.object({
  ownerId: str,
  sessionId: str,
  dryRun: z.boolean().describe('True: nothing was deleted; the lists say what would go'),
  observed: z.array(str).describe('Memories observed in the session (the roots)'),
  memoryIds: z.array(str).describe('Every memory that goes: the roots and all derived from them'),
  sessionMessages: z.number().int().describe('Buffer messages that go'),
  receipt: ReceiptOut.nullable(),
});

export const AuditEventOut = z.object({
  seq: z.number().int(),
  type: z.enum(AUDIT_TYPES),
  at: str,
  ownerId: str.nullable(),
  actor: str,
  role: str,
  memoryIds: z.array(str),
  contentHashes: z.array(str),
  reason: str.nullable(),
  details: json,
  prevHash: str,
  hash: str,
});

export const AuditVerifyOut = z.object({
  ok: z.boolean(),
  checked: z.number().int(),
  brokenAt: z.number().int().optional(),
  problem: z.enum(['hash_mismatch', 'broken_link', 'gap']).optional(),
});

const nullableMs = z.number().nullable();

export const KpisOut = z.object({
  owners: z.number(),
  memories: z.number(),
  attributedShare: z.number(),
  medianAgeMs: nullableMs.describe(
    'Median age (now minus createdAt) of the live memories; null when there are none',
  ),
  byKind: z.record(z.string(), z.number()),
  byAuthority: z.record(z.string(), z.number()),
  refusals: z.record(z.string(), z.number()),
  writes: z.number(),
  deletions: z.number(),
  reads: z.number(),
  expiry: z.object({
    purged: z.number(),
    onScheduleShare: z.number().nullable(),
    toleranceMs: z.number(),
    lagP50Ms: z.number().nullable(),
    lagMaxMs: z.number().nullable(),
  }),
  deletionPropagation: z
    .object({ count: z.number(), p50Ms: nullableMs, maxMs: nullableMs })
    .describe(
      'From a deletion request reaching the engine to its cascade committing, over the timed cascades',
    ),
  series: z
    .array(
      z.object({
        day: str.describe('YYYY-MM-DD, UTC'),
        writes: z.number(),
        refusals: z.number(),
        deletions: z.number(),
        reads: z.number(),
        expired: z.number().describe('Memories purged by expiry'),
        onScheduleShare: z.number().nullable(),
        deletionP50Ms: nullableMs,
      }),
    )
    .describe('One row per UTC day with audit events, oldest first, over the last 90 days'),
  auditEvents: z.number(),
});

export const ReadLogOut = z.object({
  reads: z
    .array(
      z.object({
        requestId: str,
        principal: str.describe('Who read (from credentials)'),
        sessionId: str
          .nullable()
          .describe("The keyed hash of the reader's session id, never the id; null without one"),
        memoryIds: z.array(str).describe('The memories the read served'),
        at: str,
      }),
    )
    .describe('Newest first'),
});

export const ExpiryRunOut = z.object({
  purged: z.number().int(),
  owners: z.number().int(),
  lagsMs: z.array(z.number()),
  receipts: z.array(ReceiptOut),
});

const count = z.number().int().nonnegative();

export const QueueMetricsOut = z.object({
  name: z.enum(JOB_NAMES),
  waiting: count,
  active: count,
  delayed: count,
  failed: count,
  completed: count,
  durationMs: z
    .object({ p50: z.number().nullable(), p95: z.number().nullable(), samples: count })
    .describe('Processing time of recently completed jobs (null when none yet)'),
});

export const QueuesOut = z.object({
  configured: z
    .boolean()
    .describe('False when this server was started without a job runner to report on'),
  queues: z.array(QueueMetricsOut),
});

export const HealthOut = z.object({ ok: z.literal(true), store: str, model: str });

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

// --- compile-time drift checks against core's types -------------------------

/** True when A and B are mutually assignable. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

export type ResponseSchemaChecks = [
  Check<Same<z.output<typeof MemoryOut>, Memory>>,
  Check<Same<z.output<typeof RememberOut>, RememberResult>>,
  Check<Same<z.output<typeof RememberManyOut>, RememberManyResult>>,
  Check<Same<z.output<typeof RecallOut>, RecallResult>>,
  Check<Same<z.output<typeof WhyOut>, WhyResult>>,
  Check<Same<z.output<typeof SerializedGraphOut>, SerializedGraph>>,
  Check<Same<z.output<typeof ReceiptOut>, DeletionReceipt>>,
  Check<Same<z.output<typeof DeletionPreviewOut>, DeletionPreview>>,
  Check<Same<z.output<typeof ReadLogOut>, ReadLogPage>>,
  Check<Same<z.output<typeof ForgottenOut>, ForgottenCheck>>,
  Check<Same<z.output<typeof ExportPageOut>, ExportPage>>,
  Check<Same<z.output<typeof SessionAppendOut>, SessionAppendResult>>,
  Check<Same<z.output<typeof SessionContextOut>, SessionContext>>,
  Check<Same<z.output<typeof SessionDeletionOut>, SessionDeletion>>,
  Check<Same<z.output<typeof SessionMessagesOut>, SessionMessages>>,
  Check<Same<z.output<typeof SessionForgettingOut>, SessionForgetting>>,
  Check<Same<z.output<typeof CorrectionOut>, CorrectionResult>>,
  Check<Same<z.output<typeof AuditEventOut>, AuditEvent>>,
  Check<Same<z.output<typeof AuditVerifyOut>, AuditVerification>>,
  Check<Same<z.output<typeof KpisOut>, Kpis>>,
  Check<Same<z.output<typeof ExpiryRunOut>, ExpiryRun>>,
  Check<Same<z.output<typeof QueueMetricsOut>, QueueMetrics>>,
  Check<Same<z.output<typeof ErrorOut>['error']['code'], ErrorCode>>,
  Check<Same<z.output<typeof WhoAmIOut>, WhoAmI>>,
  Check<Same<z.output<typeof OwnerPageOut>, OwnerPage>>,
];

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
