// The read log as a use-case: which reads served an owner's memories, to
// whom, in which session, when. The blast radius of a poisoned memory: ask
// for the reads that served it. Scoped like every read (one owner, the
// caller's), and it holds no text: ids, principals, keyed session hashes.
import { z } from 'zod';
import { isoTime } from '../domain/record.ts';
import { IdSchema, type EngineDeps } from '../services/deps.ts';
import { OWNER_ID, arg, optionalArg, type ParsedArgs } from './define.ts';

/** One read that served memories. */
export const ReadRecordSchema = z.object({
  requestId: z.string(),
  principal: z.string().describe('Who read (from credentials)'),
  /** The keyed hash of the caller's session id (as stored), never the id; null without one. */
  sessionId: z
    .string()
    .nullable()
    .describe("The keyed hash of the reader's session id, never the id; null without one"),
  memoryIds: z.array(z.string()).describe('The memories the read served'),
  at: z.string(),
});
export type ReadRecord = z.output<typeof ReadRecordSchema>;

export const ReadLogPageSchema = z.object({
  /** Newest first. */
  reads: z.array(ReadRecordSchema).describe('Newest first'),
});
export type ReadLogPage = z.output<typeof ReadLogPageSchema>;

export const ReadLogOptionsSchema = z
  .strictObject({
    /** Only the reads that served this memory. */
    memoryId: IdSchema.optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    /** Only reads strictly before this time: the `at` of a page's last read gives the next page. */
    before: isoTime.optional(),
  })
  .prefault({});

export const ReadLogArgs = [
  arg('ownerId', OWNER_ID),
  optionalArg('options', ReadLogOptionsSchema),
] as const;

export async function readLog(
  deps: EngineDeps,
  { ownerId, options }: ParsedArgs<typeof ReadLogArgs>,
): Promise<ReadLogPage> {
  const entries = await deps.store.readLog(ownerId, {
    limit: options.limit ?? 100,
    ...(options.memoryId !== undefined && { memoryId: options.memoryId }),
    // As the engine writes `at` (UTC, milliseconds), so the store compares like with like.
    ...(options.before !== undefined && { before: new Date(options.before).toISOString() }),
  });
  return {
    reads: entries.map((e) => ({
      requestId: e.requestId,
      principal: e.principal,
      sessionId: e.sessionId,
      memoryIds: [...e.memoryIds],
      at: e.at,
    })),
  };
}
