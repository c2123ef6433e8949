// The one error type of KeepGraph. Every failure a caller can cause or must
// handle has a stable string code; adapters (HTTP, CLI, workers) map codes to
// their own vocabulary through one table each, never through messages.
import { z } from 'zod';

/** Every error code KeepGraph raises. Tests assert these, never messages. */
export const ERROR_CODES = [
  // input
  'invalid_input',
  'payload_too_large',
  // an answer past the policy's limits.responseBytes: ask for less (a page, a narrower graph)
  'response_too_large',
  // the HTTP layer: headers past the server's limit, a request that did not arrive in time
  'headers_too_large',
  'request_timeout',
  'owner_required',
  'not_found',
  'conflict',
  // an Idempotency-Key sent again with another request, or while its first request still runs
  'idempotency_key_reused',
  'idempotency_in_progress',
  // authentication and authority
  'unauthenticated',
  'rate_limited',
  'forbidden_role',
  'owner_out_of_scope',
  'authority_exceeds_role',
  // policy refusals (the write is refused and audited)
  'refused_secret',
  'refused_personal_data',
  'refused_service_phrase',
  'refused_too_short',
  'refused_too_long',
  'refused_high_sensitivity',
  'refused_untrusted_source',
  'refused_ttl_out_of_range',
  'refused_kind_not_kept',
  'refused_missing_sources',
  'refused_too_many_sources',
  // configuration / infrastructure
  'invalid_policy',
  // the store cannot be reached, or another process holds its write lock past the wait
  'store_unavailable',
  // the store's disk is full: nothing of the request was written; free space, then retry
  'store_full',
  'embedder_unavailable',
  // the job queue (Redis) cannot be reached; writes go on (their jobs wait in the outbox)
  'queue_unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The one error body every failure answers with (HTTP, and the SDKs read it). */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .describe(
    'Every error: a stable code (see the status table), a message for humans, safe details',
  );
export type ErrorBody = z.output<typeof ErrorBodySchema>;

/** Codes that mean "the policy gate refused the write". */
export type RefusalCode = Extract<ErrorCode, `refused_${string}`>;

export function isRefusalCode(code: string): code is RefusalCode {
  return code.startsWith('refused_');
}

/** The single error class. `details` is safe to show to the caller. */
export class KeepGraphError extends Error {
  override readonly name = 'KeepGraphError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function isKeepGraphError(e: unknown): e is KeepGraphError {
  return e instanceof KeepGraphError;
}
