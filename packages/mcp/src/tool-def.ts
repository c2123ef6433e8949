// What an MCP tool is: its name, the use-case it runs, its hints, its
// documented arguments, how they become the engine method's, and how its
// answer reads as text. tools.ts lists the written ones; exposed-tools.ts
// derives the rest from core's registry.
import type { z } from 'zod';
import type { Engine, ToolKind, UseCaseName } from '@keepgraph/core';

/** MCP's tool hints (ToolAnnotations). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

export type Args = Record<string, unknown>;

export interface ToolDef<N extends UseCaseName = UseCaseName> {
  name: string;
  useCase: N;
  description: string;
  hints: ToolHints;
  /** The arguments, for the JSON Schema clients see (ownerId is added to every tool). */
  input: z.ZodObject;
  /** The engine method's arguments after the caller. */
  args(input: Args, ownerId: unknown): unknown[];
  /** The result as text for the model: memory text quoted as data. */
  text(result: Awaited<ReturnType<Engine[N]>>): string;
}

/** MCP's hints for each kind of tool. */
export const HINTS: Readonly<Record<ToolKind, ToolHints>> = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  write: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  delete: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
};
