// Response schemas of the HTTP API: deletions: the receipt of a cascade, its dry-run preview, corrections, the check that a deletion left nothing.
import { z } from 'zod';
import { AUTHORITIES, DELETION_REASONS, MEMORY_KINDS } from '@keepgraph/core';
import { MemoryOut } from './memory.ts';

const str = z.string();

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
