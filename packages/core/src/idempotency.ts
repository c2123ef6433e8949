// Idempotency-Key: a write sent again with the same key, by the same caller,
// within 24 hours, gets the first answer and writes nothing; the same key
// with another request is refused. Every interface that takes a key (HTTP
// now, MCP and the SDKs through it) answers through `answerOnce`, so the
// rule is spelled once. The store's claim is atomic across processes, so of
// many parallel repeats exactly one runs.
import { z } from 'zod';
import { KeepGraphError } from './errors.ts';
import { inputProblem } from './input-shape.ts';
import type { Clock } from './ports/clock.ts';
import type { IdempotencyRecords, MemoryRecords } from './ports/memory-store.ts';
import type { KeyedHash } from './audit.ts';

/** How long a first answer is kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A first request still pending after this long is taken to have died with its process. */
export const IDEMPOTENCY_ABANDONED_MS = 2 * 60 * 1000;

/** Printable ASCII without spaces, as IETF's Idempotency-Key draft and Stripe take it. */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces, 1 to 255 characters');

/** An answer to replay: its status and body. */
export interface Answer {
  status: number;
  body: unknown;
}

export interface IdempotentRequest {
  /** Whose key: the caller's principal. */
  scope: string;
  key: string;
  ownerId: string | null;
  /** What the request was, canonically (method, path, query, body): see requestHash. */
  request: unknown;
}

/** JSON with object keys sorted, so two encodings of one body hash alike. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * The request's fingerprint, keyed like the audit log's hashes: the request
 * held memory text, and a plain hash of a short text could be searched for.
 */
export function requestHash(request: unknown, keyedHash: KeyedHash): string {
  return keyedHash(canonical(request));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The memory ids an answer names (every memory id is UUID-shaped): the
 * record goes when any of them is deleted, since the answer may hold its text.
 */
export function memoryIdsIn(body: unknown, out = new Set<string>()): string[] {
  if (typeof body === 'string') {
    if (UUID.test(body)) out.add(body);
  } else if (Array.isArray(body)) for (const v of body) memoryIdsIn(v, out);
  else if (body !== null && typeof body === 'object')
    for (const v of Object.values(body)) memoryIdsIn(v, out);
  return [...out];
}

/**
 * The memories an answer names that the owner still holds: those whose
 * deletion must reach the answer. Ids of memories already gone (a deletion
 * receipt's) are left out, or verifyForgotten would find them here.
 */
async function heldIds(
  deps: { store: Pick<MemoryRecords, 'getByIds'> },
  req: IdempotentRequest,
  answer: Answer,
): Promise<string[]> {
  const named = memoryIdsIn(answer.body);
  if (req.ownerId === null || named.length === 0) return [];
  return (await deps.store.getByIds(req.ownerId, named)).map((m) => m.id);
}

export interface AnswerOnceOptions {
  /** How long a repeat waits for the first request's answer before 409 idempotency_in_progress. */
  waitMs?: number;
  pollMs?: number;
}

/**
 * Answer `req` once: run `run` if this key is new (recording its answer,
 * unless it is a server fault: those may be retried), else replay the
 * recorded answer. `replayed` tells which.
 */
export async function answerOnce(
  deps: {
    store: IdempotencyRecords & Pick<MemoryRecords, 'getByIds'>;
    clock: Clock;
    keyedHash: KeyedHash;
  },
  req: IdempotentRequest,
  run: () => Promise<Answer>,
  opts: AnswerOnceOptions = {},
): Promise<Answer & { replayed: boolean }> {
  const key = IdempotencyKeySchema.safeParse(req.key);
  if (!key.success)
    throw new KeepGraphError('invalid_input', `Idempotency-Key: ${key.error.issues[0]?.message}`, {
      issues: [{ path: 'headers.idempotency-key', message: key.error.issues[0]?.message }],
    });
  // The fingerprint walks the request: a nesting past the call stack is
  // refused here, before the use-case's own parse would refuse it.
  const shape = inputProblem(req.request);
  if (shape?.kind === 'too_deep')
    throw new KeepGraphError('invalid_input', `${shape.path}: ${shape.message}`, {
      issues: [{ path: shape.path, message: shape.message }],
    });
  const { store, clock } = deps;
  const hash = requestHash(req.request, deps.keyedHash);
  const waitUntil = Date.now() + (opts.waitMs ?? 30_000);
  for (;;) {
    const now = clock.now();
    const createdAt = now.toISOString();
    const held = await store.claimIdempotency({
      scope: req.scope,
      key: req.key,
      ownerId: req.ownerId,
      requestHash: hash,
      createdAt,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
    });
    if (held === null) {
      let answer: Answer;
      try {
        answer = await run();
      } catch (e) {
        await store.releaseIdempotency(req.scope, req.key, createdAt);
        throw e;
      }
      if (answer.status >= 500) await store.releaseIdempotency(req.scope, req.key, createdAt);
      else
        await store.completeIdempotency(
          req.scope,
          req.key,
          answer,
          await heldIds(deps, req, answer),
        );
      return { ...answer, replayed: false };
    }
    if (held.requestHash !== hash)
      throw new KeepGraphError(
        'idempotency_key_reused',
        'this Idempotency-Key was sent with another request: use a new key for a new request',
        { firstSentAt: held.createdAt },
      );
    if (held.forgotten)
      throw new KeepGraphError(
        'not_found',
        "this Idempotency-Key's first answer named memories since deleted: it is not replayed, and nothing is written again",
        { reason: 'forgotten' },
      );
    if (held.response) return { ...held.response, replayed: true };
    // Pending: another request with this key is running. A claim left by a
    // process that died is let go, and taken by whoever claims next.
    if (now.getTime() - Date.parse(held.createdAt) > IDEMPOTENCY_ABANDONED_MS) {
      await store.releaseIdempotency(req.scope, req.key, held.createdAt);
      continue;
    }
    if (Date.now() > waitUntil)
      throw new KeepGraphError(
        'idempotency_in_progress',
        'a request with this Idempotency-Key is still running: retry later for its answer',
      );
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 50));
  }
}
