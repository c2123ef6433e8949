// Response schemas of the HTTP API: pages of memories and sessions (export, list) and import results.
import { z } from 'zod';
import { MemoryOut } from './memory.ts';

const str = z.string();

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
