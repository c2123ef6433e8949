// Exit codes and the one place that turns a thrown error into what the user
// sees. Codes are mapped here, never by matching messages (STYLE habit 6).
import { isKeepGraphError, isRefusalCode } from '@keepgraph/core/registry';
import type { Io } from './io.ts';

/** Process exit codes of the `keepgraph` command. */
export const EXIT = {
  ok: 0,
  /** Invalid input, an engine error, a broken audit chain, a failed verification. */
  error: 1,
  /** The policy gate refused the write (`refused_*`). */
  refused: 2,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * A failure the CLI itself detects after printing its own explanation
 * (e.g. "audit chain broken"): carries only the exit code.
 */
export class CliExit extends Error {
  override readonly name = 'CliExit';
  constructor(readonly exitCode: ExitCode) {
    super(`exit ${exitCode}`);
  }
}

/** Stack traces are for developers: shown only with KEEPGRAPH_DEBUG=1. */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.KEEPGRAPH_DEBUG === '1' || env.KEEPGRAPH_DEBUG === 'true';
}

/** Print an error the way the CLI promises and return the exit code. */
export function reportError(e: unknown, io: Io, debug = debugEnabled()): ExitCode {
  if (e instanceof CliExit) return e.exitCode;
  if (isKeepGraphError(e)) {
    const refused = isRefusalCode(e.code);
    io.err(`${refused ? 'refused' : 'error'}: ${e.code}: ${e.message}`);
    if (debug) {
      if (e.details) io.err(JSON.stringify(e.details, null, 2));
      if (e.stack) io.err(e.stack);
    }
    return refused ? EXIT.refused : EXIT.error;
  }
  const message = e instanceof Error ? e.message : String(e);
  io.err(`error: ${message}`);
  if (debug && e instanceof Error && e.stack) io.err(e.stack);
  else if (!debug) io.err('(set KEEPGRAPH_DEBUG=1 for the stack trace)');
  return EXIT.error;
}
