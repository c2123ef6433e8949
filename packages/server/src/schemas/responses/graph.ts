// Response schemas of the HTTP API: the graph reads' nodes and edges, as
// neighbours and the entity graph draw them (core answers both as a
// SerializedGraph<true> of untyped attributes; the shapes are written here).
import { z } from 'zod';
import { AUTHORITIES, MEMORY_KINDS, StoredOriginSchema, graphSchema } from '@keepgraph/core';

const str = z.string();

/** A memory as a node of a graph read (lineage, neighbours): its key is the memory id. */
export const MemoryNodeOut = z.object({
  nodeType: z.literal('memory'),
  kind: z.enum(MEMORY_KINDS),
  text: str,
  authority: z.enum(AUTHORITIES),
  origin: StoredOriginSchema,
  sourceOrigins: z
    .array(StoredOriginSchema)
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

export const NeighboursOut = graphSchema(
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

export const EntityGraphOut = graphSchema(
  true,
  z.object({
    ownerId: str,
    truncated: z.boolean().describe('True when relation edges were left out at the limit'),
  }),
  EntityNodeOut,
  RelationEdgeOut,
);
