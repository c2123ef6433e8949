// The one error the OpenAI-compatible extractor throws: a typed rejection of
// the whole reply, with a reason reflection can branch on (retry or audit) and
// a message that never carries episode text (the audit log stores no content).

/** Why an extraction was rejected. */
export const EXTRACTION_REJECTION_REASONS = [
  /** The endpoint answered with a non-2xx status (see `status`). */
  'http_error',
  /** No answer at all: connection refused or reset, DNS failure. */
  'network',
  /** No complete answer within `timeoutMs`. */
  'timeout',
  /** Not a chat completion, no content, content not JSON, or cut short. */
  'malformed',
  /** The model declined (`message.refusal`, or a content filter stopped it). */
  'refused',
  /** JSON, but not the claims schema (kind, relation type, range, field...). */
  'off_schema',
  /** A claim names a source that is not one of the input episodes. */
  'foreign_source',
] as const;
export type ExtractionRejectionReason = (typeof EXTRACTION_REJECTION_REASONS)[number];

/** HTTP statuses worth asking again: request timeout, rate limit, server side. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Options of {@link ExtractionRejected}. */
export interface ExtractionRejectedOptions {
  /** Defaults by reason: network and timeout yes, the rest no. */
  retryable?: boolean;
  /** The HTTP status, for `http_error`. */
  status?: number;
  /** From a `Retry-After` header, when the endpoint sent one. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * The extractor refused the reply, all of it: one bad claim rejects every
 * claim, so reflection writes nothing and audits the rejection.
 *
 * `retryable` says whether asking again may help: transient failures
 * (network, timeout, HTTP 408/429/5xx) are retryable; a reply that was
 * malformed, off-schema, refused or pointing outside the episodes is not, since
 * at temperature 0 the same episodes would get the same answer.
 *
 * `message` and `detail` name the reason, the JSON path or status involved, and
 * never any episode text or model output. Recognise it with
 * {@link isExtractionRejected} (by name, so a second copy of this package
 * still matches).
 */
export class ExtractionRejected extends Error {
  override readonly name = 'ExtractionRejected';
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly reason: ExtractionRejectionReason,
    /** Short, content-free: e.g. `HTTP 503`, `claims[1].kind: invalid_value`. */
    readonly detail: string,
    opts: ExtractionRejectedOptions = {},
  ) {
    super(
      `extraction rejected (${reason}): ${detail}`,
      opts.cause === undefined ? {} : { cause: opts.cause },
    );
    this.retryable = opts.retryable ?? (reason === 'network' || reason === 'timeout');
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** True for an {@link ExtractionRejected}, checked by name and shape, not by class identity. */
export function isExtractionRejected(e: unknown): e is ExtractionRejected {
  if (e instanceof ExtractionRejected) return true;
  if (!(e instanceof Error) || e.name !== 'ExtractionRejected') return false;
  const x = e as Partial<ExtractionRejected>;
  return (
    typeof x.retryable === 'boolean' &&
    (EXTRACTION_REJECTION_REASONS as readonly string[]).includes(x.reason as string)
  );
}
