// Response schemas of the HTTP API: answers core returns without a named
// type: an owner's sessions, and a key's value with its conflicts. (Export
// and list pages and import reports are core's: ExportPageSchema,
// MemoryPageSchema, ImportReportSchema.)
import { z } from 'zod';
import { MemorySchema } from '@keepgraph/core';
import { SessionSummarySchema } from '@keepgraph/core/ports';

export const SessionsOut = z.object({
  ownerId: z.string(),
  sessions: z.array(SessionSummarySchema),
});

export const KvOut = z.object({
  current: MemorySchema.nullable(),
  conflicts: z.array(MemorySchema),
});
