// How the client talks to the server: one route's request built (path
// segments checked, query, Idempotency-Key on writes), sent with a timeout,
// retried after 429, 503 or a network failure (Retry-After honoured, else
// exponential backoff), and an error body turned into a KeepGraphError.
import { KeepGraphError } from './errors.ts';
import { ROUTES, type RouteName } from './routes.ts';

export interface ClientOptions {
  /** Where `keepgraph start` listens: `http://127.0.0.1:7411`. */
  baseUrl: string;
  /** An API key (`kgk_…`) or a JWT, sent as a bearer token. */
  apiKey: string;
  /** Per attempt, in ms (default 30 000). */
  timeoutMs?: number;
  /** Retries after 429 or 503 or a network failure (default 3). */
  retries?: number;
  /** Base of the exponential backoff when no Retry-After is given, in ms (default 250). */
  backoffMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** For writes: replayed by the server within 24 h; a fresh one is made when absent. */
  idempotencyKey?: string;
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface Request {
  params?: Record<string, string | number>;
  query?: Query;
  body?: unknown;
  contentType?: string;
}

const RETRY_STATUS = new Set([429, 503]);

function retryAfterMs(h: string | null): number | null {
  if (h === null) return null;
  const s = Number(h);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const t = Date.parse(h);
  return Number.isNaN(t) ? null : Math.max(0, t - Date.now());
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((done, fail) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        fail(new KeepGraphError('aborted', 'the call was aborted', 0));
      },
      { once: true },
    );
  });
}

/**
 * One path segment. An id of `.` or `..` cannot be sent as one: WHATWG URL
 * parsing (`new URL`, `fetch`, every browser) removes such a segment, and
 * `%2E` or `%2E%2E` too (the spec reads them as dots), so a call about
 * session `..` of owner `zed` would go to `/v1/owners/zed/forget` or the
 * like. The server refuses those ids on every route; refused here before
 * anything is sent, with the server's code.
 */
export function pathSegment(name: string, value: string | number): string {
  const v = String(value);
  if (v === '.' || v === '..')
    throw new KeepGraphError('invalid_input', `${name} must not be "." or ".."`, 0, {
      field: name,
    });
  return encodeURIComponent(v);
}

/** The client's options with the base URL trimmed and the fetch chosen. */
export interface Transport {
  opts: ClientOptions;
  base: string;
  doFetch: typeof fetch;
}

export function transportOf(opts: ClientOptions): Transport {
  return {
    opts,
    base: opts.baseUrl.replace(/\/+$/, ''),
    doFetch: opts.fetch ?? globalThis.fetch.bind(globalThis),
  };
}

/** One route, with retries; answers the parsed body (or the raw text for JSON lines). */
export async function send<T>(
  t: Transport,
  route: RouteName,
  req: Request = {},
  call: CallOptions = {},
): Promise<T> {
  const [method, template] = ROUTES[route].split(' ') as [string, string];
  const path = template
    .replace(/:(\w+)/g, (m, name: string) =>
      name in (req.params ?? {}) ? pathSegment(name, req.params![name]!) : m,
    )
    .replace(/::/g, ':');
  const url = new URL(`${t.base}/v1${path}`);
  for (const [k, v] of Object.entries(req.query ?? {}))
    if (v !== undefined) url.searchParams.set(k, Array.isArray(v) ? v.join(',') : String(v));
  const headers: Record<string, string> = { authorization: `Bearer ${t.opts.apiKey}` };
  if (req.body !== undefined) headers['content-type'] = req.contentType ?? 'application/json';
  const write =
    method !== 'GET' && route !== 'recall' && route !== 'why' && route !== 'verifyForgotten';
  // Key creation refuses a key (its answer holds a secret): never retried blindly.
  if (write && route !== 'createKey')
    headers['idempotency-key'] = call.idempotencyKey ?? globalThis.crypto.randomUUID();
  const body =
    req.body === undefined
      ? undefined
      : typeof req.body === 'string'
        ? req.body
        : JSON.stringify(req.body);
  const retries = route === 'createKey' ? 0 : (t.opts.retries ?? 3);
  for (let attempt = 0; ; attempt++) {
    const timeout = AbortSignal.timeout(t.opts.timeoutMs ?? 30_000);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await t.doFetch(url, {
        method,
        headers,
        ...(body !== undefined && { body }),
        signal,
      });
    } catch (e) {
      if (call.signal?.aborted) throw new KeepGraphError('aborted', 'the call was aborted', 0);
      const timedOut = timeout.aborted;
      if (attempt < retries) {
        await sleep((t.opts.backoffMs ?? 250) * 2 ** attempt, call.signal);
        continue;
      }
      throw timedOut
        ? new KeepGraphError('timeout', `no answer within ${t.opts.timeoutMs ?? 30_000} ms`, 0)
        : new KeepGraphError('network_error', `cannot reach ${t.base}: ${String(e)}`, 0);
    }
    if (RETRY_STATUS.has(res.status) && attempt < retries) {
      await res.body?.cancel();
      const wait =
        retryAfterMs(res.headers.get('retry-after')) ?? (t.opts.backoffMs ?? 250) * 2 ** attempt;
      await sleep(wait, call.signal);
      continue;
    }
    const text = await res.text();
    if (!res.ok) {
      let err: { code?: string; message?: string; details?: Record<string, unknown> } = {};
      try {
        err = (JSON.parse(text) as { error?: typeof err }).error ?? {};
      } catch {
        // not our error body (a proxy's page): keep the status
      }
      throw new KeepGraphError(
        err.code ?? `http_${res.status}`,
        err.message ?? text.slice(0, 200),
        res.status,
        err.details,
      );
    }
    if ((res.headers.get('content-type') ?? '').includes('application/x-ndjson')) return text as T;
    return JSON.parse(text) as T;
  }
}
