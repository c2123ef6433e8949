// Response schemas of the HTTP API: the graph reads: lineage, a memory's neighbours, an owner's entity graph, who the caller is, owners.
import { z } from 'zod';
import { ROLES, AUTHORITIES, MEMORY_KINDS } from '@keepgraph/core';
import { OriginOut, PromptOut, RecallOut } from './memory.ts';

const str = z.string();
const json = z.record(z.string(), z.unknown());

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

/**
 * graphology's serialisation format, as Graph.from() loads it: `multi` when
 * a pair of nodes may hold several edges (an entity graph's relations).
 */
function graphOut<M extends boolean, A extends z.ZodType, N extends z.ZodType, E extends z.ZodType>(
  multi: M,
  attributes: A,
  node: N,
  edge: E,
) {
  return z
    .object({
      attributes,
      options: z.object({
        type: z.literal('directed'),
        multi: z.literal(multi),
        allowSelfLoops: z.literal(false),
      }),
      nodes: z.array(z.object({ key: str, attributes: node })),
      edges: z.array(z.object({ key: str, source: str, target: str, attributes: edge })),
    })
    .describe("graphology's serialisation format: load it with Graph.from()");
}

/** A lineage: memories and their DERIVED_FROM and SUPERSEDES edges. */
export const SerializedGraphOut = graphOut(false, json, json, json);

export const NeighboursOut = graphOut(
  true,
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

export const EntityGraphOut = graphOut(
  true,
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

export const WhyOut = RecallOut.extend({
  lineage: z.record(z.string(), SerializedGraphOut),
  prompt: PromptOut,
});
