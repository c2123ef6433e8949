// Idempotency-Key: a write sent again with the same key, by the same caller,
// within 24 hours, gets the first answer and writes nothing; the same key
// with another request is refused. Every interface that takes a key (HTTP
// now, MCP and the SDKs through it) answers through `answerOnce`, so the
// rule is spelled once. The store's claim is atomic across processes, so of
// many parallel repeats exactly one runs.
//
// A record outlives what its request named (a session forgotten, a memory
// deleted) and holds whatever the client chose to send as the key, so it
// keeps as little as a replay needs: keyed hashes of the key and of the
// caller, an error's status and code without its message (messages may
// echo the input), and a success's body without the values the request's
// URL held (a session id, say), which the repeat's own URL gives back.
import { z } from 'zod';
import { ERROR_CODES, KeepGraphError, type ErrorCode } from './domain/errors.ts';
import { inputProblem } from './domain/input-shape.ts';
import type { Clock } from './ports/clock.ts';
import type { IdempotencyRecords, KeptAnswer, MemoryRecords } from './ports/memory-store.ts';
import type { KeyedHash } from './domain/audit.ts';
import type { Caller } from './services/deps.ts';

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
  /**
   * Whose key: the credential as its checks saw it. A kept answer is
   * replayed only to the same principal with the same role and owners (see
   * idempotencyScope); the caller must have passed the engine's checks for
   * this request first (`checkUseCaseCall`).
   */
  caller: Pick<Caller, 'principal' | 'role' | 'owners'>;
  key: string;
  ownerId: string | null;
  /** What the request was, canonically (method, path, query, body): see requestHash. */
  request: unknown;
  /**
   * The request's path parameters (`{ ownerId, sessionId }`): values the
   * kept answer does not hold. A repeat has the same ones (its request
   * hash matches, and the path is part of it), so they are put back from it.
   */
  params?: Readonly<Record<string, unknown>>;
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

/**
 * Whose records a caller's are: a keyed hash of its principal, role and
 * owners (sorted), fixed in length however long the principal or the owner
 * list. A credential narrowed since (another role, fewer owners) is another
 * scope, and never gets what its former rights were answered.
 */
export function idempotencyScope(
  caller: Pick<Caller, 'principal' | 'role' | 'owners'>,
  keyedHash: KeyedHash,
): string {
  const owners =
    caller.owners === 'all' ? 'all' : [...new Set(caller.owners.map(codeUnits))].sort();
  return keyedHash(
    canonical({
      idempotencyScope: 1,
      principal: codeUnits(caller.principal),
      role: caller.role,
      owners,
    }),
  );
}

/**
 * A string as hex UTF-16 code units: keyedHash normalises its input (NFC),
 * and two principals that differ only in normalisation are two callers.
 */
function codeUnits(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += s.charCodeAt(i).toString(16).padStart(4, '0');
  return out;
}

/**
 * The key as stored: a keyed hash, since a client may send anything as its
 * key (a secret pasted by mistake, a session id) and the record outlives
 * what the request named.
 */
export function idempotencyKeyHash(key: string, keyedHash: KeyedHash): string {
  return keyedHash(canonical({ idempotencyKey: key }));
}

/** What a replayed error says: its message and details were not kept. */
export const REPLAYED_ERROR_MESSAGE =
  'this is the first answer to this Idempotency-Key, replayed: its status and code are kept, not its message';

function errorCodeOf(body: unknown): ErrorCode {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return (ERROR_CODES as readonly unknown[]).includes(code) ? (code as ErrorCode) : 'internal';
}

/**
 * What a record keeps of an answer. An error (status 400 and up, whose body
 * is `{ error: { code, message, details? } }`) keeps its status and code:
 * its message and details may quote the input (a property's name, a
 * session id). A success keeps its body with every string equal to one of
 * the request's path parameters set to null, and where each was.
 */
export function keptAnswer(answer: Answer, params: IdempotentRequest['params'] = {}): KeptAnswer {
  if (answer.status >= 400)
    return { status: answer.status, body: { error: { code: errorCodeOf(answer.body) } } };
  // The engine answers with ids as it parsed them (NFC): a parameter sent
  // in another normal form is found in that form, and given back in it.
  const byValue = new Map<string, { name: string; nfc?: true }>();
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string' || value === '') continue;
    if (!byValue.has(value)) byValue.set(value, { name });
    const nfc = value.normalize('NFC');
    if (!byValue.has(nfc)) byValue.set(nfc, { name, nfc: true });
  }
  if (byValue.size === 0) return { status: answer.status, body: answer.body };
  const places: NonNullable<KeptAnswer['params']> = [];
  const strip = (v: unknown, path: (string | number)[]): unknown => {
    if (typeof v === 'string') {
      const param = byValue.get(v);
      if (param === undefined) return v;
      places.push({ path, ...param });
      return null;
    }
    if (Array.isArray(v)) return v.map((x, i) => strip(x, [...path, i]));
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strip(x, [...path, k])]));
    return v;
  };
  const body = strip(answer.body, []);
  return { status: answer.status, body, ...(places.length > 0 && { params: places }) };
}

/** The answer a kept one replays, for a repeat with these path parameters. */
export function replayedAnswer(kept: KeptAnswer, params: IdempotentRequest['params'] = {}): Answer {
  if (kept.status >= 400)
    return {
      status: kept.status,
      body: { error: { code: errorCodeOf(kept.body), message: REPLAYED_ERROR_MESSAGE } },
    };
  let body = kept.body;
  for (const { path, name, nfc } of kept.params ?? []) {
    const given = params[name];
    const value = typeof given === 'string' ? (nfc ? given.normalize('NFC') : given) : null;
    if (path.length === 0) {
      body = value;
      continue;
    }
    let at = body as Record<string | number, unknown>;
    for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
    at[path[path.length - 1]!] = value;
  }
  return { status: kept.status, body };
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
  // An error's body is not kept (keptAnswer): there is nothing to drop.
  if (answer.status >= 400) return [];
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
  const scope = idempotencyScope(req.caller, deps.keyedHash);
  const keyHash = idempotencyKeyHash(req.key, deps.keyedHash);
  const waitUntil = Date.now() + (opts.waitMs ?? 30_000);
  for (;;) {
    const now = clock.now();
    const createdAt = now.toISOString();
    const held = await store.claimIdempotency({
      scope,
      key: keyHash,
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
        await store.releaseIdempotency(scope, keyHash, createdAt);
        throw e;
      }
      if (answer.status >= 500) await store.releaseIdempotency(scope, keyHash, createdAt);
      else
        await store.completeIdempotency(
          scope,
          keyHash,
          keptAnswer(answer, req.params),
          // From the whole answer: a memory named only where a path
          // parameter was (and so not kept) may still have its text here.
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
    if (held.response) return { ...replayedAnswer(held.response, req.params), replayed: true };
    // Pending: another request with this key is running. A claim left by a
    // process that died is let go, and taken by whoever claims next.
    if (now.getTime() - Date.parse(held.createdAt) > IDEMPOTENCY_ABANDONED_MS) {
      await store.releaseIdempotency(scope, keyHash, held.createdAt);
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
