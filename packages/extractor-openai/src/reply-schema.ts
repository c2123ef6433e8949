// The reply contract: the JSON schema sent as `response_format` (strict
// structured outputs), the zod schema that checks what actually came back,
// and the mapping to core's ExtractedClaim. Limits follow core's
// MemoryInputSchema so that every accepted claim is writable as a memory.
import { z } from 'zod';
import { ENTITY_TYPE, EntityRefSchema, MAX_TEXT_CHARS, RelationInputSchema } from '@keepgraph/core';
import { type ExtractedClaim } from '@keepgraph/core/ports';

/**
 * Kinds the extractor may produce. Not `episode` (what it reads), not `kv`
 * (keyed values are written by callers, never guessed), not `summary`
 * (reflection distils durable claims; summarising is compaction's job).
 */
export const CLAIM_KINDS = ['fact', 'preference', 'constraint', 'goal', 'rule', 'profile'] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

/** Most claims one reply may carry; a longer list is off-schema (bounded, invariant 10). */
export const MAX_CLAIMS = 100;
/** As in core's MemoryInputSchema. */
const MAX_ENTITIES = 64;

/**
 * Up to this many episodes, `sourceIds` items are an `enum` of the episode ids,
 * so a constrained decoder cannot name anything else. Past it, plain strings
 * (OpenAI limits enums to a few hundred values); the check after the reply
 * applies either way.
 */
export const SOURCE_ID_ENUM_LIMIT = 250;

/** The JSON schema of the reply, in the subset strict structured outputs accept. */
export function replyJsonSchema(episodeIds: readonly string[]): Record<string, unknown> {
  const entity = {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'as the episodes name it' },
      type: {
        type: 'string',
        description: 'short lower-case word: person, organisation, place, product, topic...',
      },
    },
    required: ['name', 'type'],
    additionalProperties: false,
  };
  const ids = [...new Set(episodeIds)];
  const sourceId =
    ids.length > 0 && ids.length <= SOURCE_ID_ENUM_LIMIT
      ? { type: 'string', enum: ids }
      : { type: 'string' };
  return {
    type: 'object',
    properties: {
      claims: {
        type: 'array',
        maxItems: MAX_CLAIMS,
        items: {
          type: 'object',
          properties: {
            kind: { type: 'string', enum: [...CLAIM_KINDS] },
            text: { type: 'string', description: 'one self-contained sentence' },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
            sourceIds: { type: 'array', minItems: 1, items: sourceId },
            about: { type: 'array', maxItems: MAX_ENTITIES, items: entity },
            relations: {
              type: 'array',
              maxItems: MAX_ENTITIES,
              items: {
                type: 'object',
                properties: {
                  subject: entity,
                  type: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,63}$' },
                  object: entity,
                  reason: { type: ['string', 'null'] },
                },
                required: ['subject', 'type', 'object', 'reason'],
                additionalProperties: false,
              },
            },
          },
          required: ['kind', 'text', 'confidence', 'sourceIds', 'about', 'relations'],
          additionalProperties: false,
        },
      },
    },
    required: ['claims'],
    additionalProperties: false,
  };
}

/**
 * Core's entity, its type required: core would default a missing type to
 * `thing`, and since entities are told apart by name and type, that would
 * split one entity in two.
 */
const ReplyEntitySchema = EntityRefSchema.extend({ type: ENTITY_TYPE });

/**
 * Core's relation. Strict mode makes every field required, so "no reason"
 * arrives as null; a server that ignores the schema and leaves it out means the same.
 */
const ReplyRelationSchema = RelationInputSchema.extend({
  subject: ReplyEntitySchema,
  object: ReplyEntitySchema,
  reason: z.string().trim().min(1).max(1000).nullable().optional(),
});

const ReplyClaimSchema = z.strictObject({
  kind: z.enum(CLAIM_KINDS),
  // A claim is its text: reflection stores it as the memory's text, and an
  // empty one would say nothing whatever entities came with it.
  text: z.string().trim().min(1).max(MAX_TEXT_CHARS),
  confidence: z.number().min(0).max(1),
  sourceIds: z.array(z.string().min(1).max(64)).min(1).max(10_000),
  about: z.array(ReplyEntitySchema).max(MAX_ENTITIES),
  relations: z.array(ReplyRelationSchema).max(MAX_ENTITIES),
});

/** What the model's content must parse to. Unknown keys are off-schema too. */
export const ReplySchema = z.strictObject({
  claims: z.array(ReplyClaimSchema).max(MAX_CLAIMS),
});
export type Reply = z.output<typeof ReplySchema>;

/** Core's claim shape: trimmed, sources deduplicated, a null reason left out. */
export function toExtractedClaims(reply: Reply): ExtractedClaim[] {
  return reply.claims.map((c) => ({
    kind: c.kind,
    text: c.text,
    confidence: c.confidence,
    sourceIds: [...new Set(c.sourceIds)],
    about: c.about.map((e) => ({ name: e.name, type: e.type })),
    relations: c.relations.map(({ subject, type, object, reason }) => ({
      subject: { name: subject.name, type: subject.type },
      type,
      object: { name: object.name, type: object.type },
      ...(reason == null ? {} : { reason }),
    })),
  }));
}

/**
 * Where and how a parse failed, without the values: `claims[1].kind: invalid_value`.
 * zod's messages may quote keys or values from the model's output, so only
 * paths and issue codes leave this module.
 */
export function describeIssues(error: z.ZodError, max = 3): string {
  const parts = error.issues.slice(0, max).map((i) => {
    const path = i.path
      .map((p, n) => (typeof p === 'number' ? `[${p}]` : `${n === 0 ? '' : '.'}${String(p)}`))
      .join('');
    return `${path || '(root)'}: ${i.code}`;
  });
  const more = error.issues.length > max ? `; +${error.issues.length - max} more` : '';
  return parts.join('; ') + more;
}
