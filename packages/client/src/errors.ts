// The client's one error type: every failure the API answers carries its
// KeepGraph code (the same codes as core's), the HTTP status and the safe
// details; failures before an answer (network, timeout, abort) get codes of
// their own so callers branch on `code` alone.
export type ClientErrorCode = string;

export class KeepGraphError extends Error {
  override readonly name = 'KeepGraphError';
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    /** The HTTP status, or 0 when no answer came (network_error, timeout, aborted). */
    readonly status: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function isKeepGraphError(e: unknown): e is KeepGraphError {
  return e instanceof KeepGraphError;
}
