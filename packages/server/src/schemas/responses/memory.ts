// Response schemas of the HTTP API: memories as every answer shows them, and the answers of writing and recalling them.
import { z } from 'zod';
import { AUTHORITIES, MEMORY_KINDS, SENSITIVITIES, SOURCE_KINDS } from '@keepgraph/core';

const str = z.string();

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

export const PromptOut = str.describe(
  'The same results rendered for an LLM prompt as quoted data: each item a JSON string with its origin; third-party memories and tool messages carry untrusted="true"',
);
