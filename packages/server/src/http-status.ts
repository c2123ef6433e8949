// The one table from KeepGraph error codes to HTTP status (STYLE habit 6).
// A `Record<ErrorCode, number>` so that a code added to core without a
// status here fails to compile instead of silently becoming a 500.
import { ERROR_CODES, type ErrorCode } from '@keepgraph/core';

/** HTTP status for every KeepGraph error code. */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_input: 400,
  payload_too_large: 413,
  // RFC 9110's "content too large", here of the answer asked for: the caller
  // can ask for less, so it is the caller's to fix, not a fault.
  response_too_large: 413,
  headers_too_large: 431,
  request_timeout: 408,
  owner_required: 400,
  not_found: 404,
  conflict: 409,
  idempotency_key_reused: 409,
  idempotency_in_progress: 409,
  unauthenticated: 401,
  rate_limited: 429,
  forbidden_role: 403,
  // The same answer whether the owner exists or not: no enumeration.
  owner_out_of_scope: 403,
  authority_exceeds_role: 403,
  // A policy refusal: the request was well formed, the content is not kept.
  refused_secret: 422,
  refused_personal_data: 422,
  refused_service_phrase: 422,
  refused_too_short: 422,
  refused_too_long: 422,
  refused_high_sensitivity: 422,
  refused_untrusted_source: 422,
  refused_ttl_out_of_range: 422,
  refused_kind_not_kept: 422,
  refused_missing_sources: 422,
  refused_too_many_sources: 422,
  // The server's own configuration is wrong: not the caller's fault.
  invalid_policy: 500,
  // A dependency is down, locked or out of room: nothing is half-written
  // (each write is one transaction), and the request may be sent again once
  // the dependency is back.
  store_unavailable: 503,
  store_full: 503,
  embedder_unavailable: 503,
  queue_unavailable: 503,
  internal: 500,
};

/**
 * Retry-After, in seconds, for the codes that mean "not now": a dependency
 * away or a first request still running. A client that honours it (ours
 * do) comes back when the answer may differ; rate_limited sets its own
 * from the window.
 */
export const RETRY_AFTER_SECONDS: Readonly<Partial<Record<ErrorCode, number>>> = {
  store_unavailable: 2,
  embedder_unavailable: 2,
  queue_unavailable: 5,
  // Room is made by an operator, not by waiting a moment.
  store_full: 30,
  idempotency_in_progress: 1,
};

const KNOWN = new Set<string>(ERROR_CODES);

/** Status for a code; unknown strings (never expected) map to 500. */
export function httpStatusOf(code: string): number {
  return KNOWN.has(code) ? HTTP_STATUS[code as ErrorCode] : 500;
}
