// Response schemas of the HTTP API: the session buffer: appends, contexts, messages, deletions.
import { z } from 'zod';
import { PromptOut } from './memory.ts';
import { ROLES } from '@keepgraph/core';
import { ReceiptOut } from './deletion.ts';
import { RecallOut } from './memory.ts';

const str = z.string();

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
