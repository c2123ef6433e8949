// The KeepGraph HTTP client. Each method is a route of the API, named by the
// use-case it runs (ROUTES below spells each route exactly as the server
// declares it; a test holds the two together), and its result type is the
// engine method's own (`Out<N>`), so no response type is copied by hand.
// fetch-based: Node 20 and browsers. Every write carries an Idempotency-Key
// (the caller's, or a fresh one), so a retry after 429 or 503 can never
// write twice; retries honour Retry-After and back off otherwise.
import type {
  CorrectionInput,
  DeletionPreview,
  DeletionReceipt,
  Engine,
  ImportReport,
  MemoryFilter,
  MemoryInput,
  RecallOptions,
  SessionAppendInput,
  UseCaseName,
  Memory,
} from '@keepgraph/core';
import { KeepGraphError } from './errors.ts';

/** What the engine method of a use-case answers: the route's body. */
export type Out<N extends UseCaseName> = Awaited<ReturnType<Engine[N]>>;

/** Every route the client calls, by use-case: `METHOD /path` as the server declares it. */
export const ROUTES = {
  remember: 'POST /owners/:ownerId/memories',
  rememberMany: 'POST /owners/:ownerId/memories::batch',
  importMemories: 'POST /owners/:ownerId/import',
  get: 'GET /owners/:ownerId/memories/:id',
  correct: 'PATCH /owners/:ownerId/memories/:id',
  lineage: 'GET /owners/:ownerId/memories/:id/lineage',
  neighbours: 'GET /owners/:ownerId/memories/:id/neighbours',
  entityGraph: 'GET /owners/:ownerId/entities/graph',
  forgetOne: 'DELETE /owners/:ownerId/memories/:id',
  listMemories: 'GET /owners/:ownerId/memories',
  exportJsonl: 'GET /owners/:ownerId/export.jsonl',
  exportPage: 'GET /owners/:ownerId/export',
  recall: 'POST /owners/:ownerId/recall',
  why: 'POST /owners/:ownerId/why',
  forget: 'POST /owners/:ownerId/forget',
  verifyForgotten: 'POST /owners/:ownerId/verify-forgotten',
  forgetOwner: 'DELETE /owners/:ownerId',
  revokeSource: 'POST /owners/:ownerId/revoke-source',
  getByKey: 'GET /owners/:ownerId/kv/:key',
  putByKey: 'PUT /owners/:ownerId/kv/:key',
  listSessions: 'GET /owners/:ownerId/sessions',
  sessionAppend: 'POST /owners/:ownerId/sessions/:sessionId/messages',
  sessionContext: 'GET /owners/:ownerId/sessions/:sessionId/context',
  readSession: 'GET /owners/:ownerId/sessions/:sessionId/messages',
  readLog: 'GET /owners/:ownerId/reads',
  forgetSession: 'POST /owners/:ownerId/sessions/:sessionId/forget',
  deleteSession: 'DELETE /owners/:ownerId/sessions/:sessionId',
  deleteSessionMessage: 'DELETE /owners/:ownerId/sessions/:sessionId/messages/:seq',
  auditList: 'GET /audit',
  auditVerify: 'GET /audit/verify',
  kpis: 'GET /kpis',
  expireDue: 'POST /expire',
  createKey: 'POST /keys',
  listKeys: 'GET /keys',
  revokeKey: 'DELETE /keys/:id',
  whoami: 'GET /whoami',
  listOwners: 'GET /owners',
} as const;
export type RouteName = keyof typeof ROUTES;

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

type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

interface Request {
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
function pathSegment(name: string, value: string | number): string {
  const v = String(value);
  if (v === '.' || v === '..')
    throw new KeepGraphError('invalid_input', `${name} must not be "." or ".."`, 0, {
      field: name,
    });
  return encodeURIComponent(v);
}

/** The list filters as the query string GET …/memories takes (lists comma-separated). */
function filterQuery(f: Partial<MemoryFilter> = {}): Query {
  const { kinds, authorities, ...rest } = f;
  return {
    ...(rest as Query),
    ...(kinds && { kind: kinds.join(',') }),
    ...(authorities && { authority: authorities.join(',') }),
  };
}

export class KeepGraphClient {
  private readonly base: string;
  private readonly doFetch: typeof fetch;

  constructor(private readonly opts: ClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, '');
    this.doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** One route, with retries; answers the parsed body (or the raw text for JSON lines). */
  async call<T>(route: RouteName, req: Request = {}, call: CallOptions = {}): Promise<T> {
    const [method, template] = ROUTES[route].split(' ') as [string, string];
    const path = template
      .replace(/:(\w+)/g, (m, name: string) =>
        name in (req.params ?? {}) ? pathSegment(name, req.params![name]!) : m,
      )
      .replace(/::/g, ':');
    const url = new URL(`${this.base}/v1${path}`);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, Array.isArray(v) ? v.join(',') : String(v));
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.apiKey}` };
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
    const retries = route === 'createKey' ? 0 : (this.opts.retries ?? 3);
    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
      const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await this.doFetch(url, {
          method,
          headers,
          ...(body !== undefined && { body }),
          signal,
        });
      } catch (e) {
        if (call.signal?.aborted) throw new KeepGraphError('aborted', 'the call was aborted', 0);
        const timedOut = timeout.aborted;
        if (attempt < retries) {
          await sleep((this.opts.backoffMs ?? 250) * 2 ** attempt, call.signal);
          continue;
        }
        throw timedOut
          ? new KeepGraphError('timeout', `no answer within ${this.opts.timeoutMs ?? 30_000} ms`, 0)
          : new KeepGraphError('network_error', `cannot reach ${this.base}: ${String(e)}`, 0);
      }
      if (RETRY_STATUS.has(res.status) && attempt < retries) {
        await res.body?.cancel();
        const wait =
          retryAfterMs(res.headers.get('retry-after')) ??
          (this.opts.backoffMs ?? 250) * 2 ** attempt;
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
      if ((res.headers.get('content-type') ?? '').includes('application/x-ndjson'))
        return text as T;
      return JSON.parse(text) as T;
    }
  }

  // --- writes ---------------------------------------------------------------

  remember(ownerId: string, memory: MemoryInput, o?: CallOptions) {
    return this.call<Out<'remember'>>('remember', { params: { ownerId }, body: memory }, o);
  }
  rememberMany(ownerId: string, memories: readonly MemoryInput[], o?: CallOptions) {
    return this.call<Out<'rememberMany'>>(
      'rememberMany',
      { params: { ownerId }, body: { memories } },
      o,
    );
  }
  /** Import JSONL text (memory inputs, or an export) through the gate, with a report per line. */
  importMemories(ownerId: string, jsonl: string, o?: CallOptions) {
    return this.call<ImportReport>(
      'importMemories',
      { params: { ownerId }, body: jsonl, contentType: 'application/x-ndjson' },
      o,
    );
  }
  correct(ownerId: string, id: string, correction: CorrectionInput, o?: CallOptions) {
    return this.call<Out<'correct'>>('correct', { params: { ownerId, id }, body: correction }, o);
  }
  putByKey(
    ownerId: string,
    key: string,
    value: Omit<MemoryInput, 'key' | 'kind'> & { kind?: MemoryInput['kind'] },
    o?: CallOptions,
  ) {
    return this.call<Out<'putByKey'>>('putByKey', { params: { ownerId, key }, body: value }, o);
  }
  sessionAppend(ownerId: string, sessionId: string, input: SessionAppendInput, o?: CallOptions) {
    return this.call<Out<'sessionAppend'>>(
      'sessionAppend',
      { params: { ownerId, sessionId }, body: input },
      o,
    );
  }

  // --- reads ----------------------------------------------------------------

  recall(ownerId: string, query: string, options: RecallOptions = {}, o?: CallOptions) {
    return this.call<Out<'recall'>>(
      'recall',
      { params: { ownerId }, body: { ...options, query } },
      o,
    );
  }
  why(ownerId: string, query: string, options: RecallOptions = {}, o?: CallOptions) {
    return this.call<Out<'why'>>('why', { params: { ownerId }, body: { ...options, query } }, o);
  }
  get(ownerId: string, id: string, o?: CallOptions) {
    return this.call<Out<'get'>>('get', { params: { ownerId, id } }, o);
  }
  lineage(ownerId: string, id: string, o?: CallOptions) {
    return this.call<Out<'lineage'>>('lineage', { params: { ownerId, id } }, o);
  }
  /** The memory, its sources, what was derived from it, its versions and the relations it asserts. */
  neighbours(ownerId: string, id: string, o?: CallOptions) {
    return this.call<Out<'neighbours'>>('neighbours', { params: { ownerId, id } }, o);
  }
  /** The owner's entities and the relations live memories assert between them. */
  entityGraph(ownerId: string, opts: { limit?: number } = {}, o?: CallOptions) {
    return this.call<Out<'entityGraph'>>('entityGraph', { params: { ownerId }, query: opts }, o);
  }
  getByKey(ownerId: string, key: string, o?: CallOptions) {
    return this.call<Out<'getByKey'>>('getByKey', { params: { ownerId, key } }, o);
  }
  listMemories(
    ownerId: string,
    page: { filter?: Partial<MemoryFilter>; after?: string; limit?: number } = {},
    o?: CallOptions,
  ) {
    return this.call<Out<'listMemories'>>(
      'listMemories',
      {
        params: { ownerId },
        query: { ...filterQuery(page.filter), after: page.after, limit: page.limit },
      },
      o,
    );
  }
  /** Every memory of the owner matching `filter`, page after page. */
  async *allMemories(
    ownerId: string,
    filter?: Partial<MemoryFilter>,
    o?: CallOptions,
  ): AsyncGenerator<Memory> {
    let after: string | undefined;
    do {
      const page = await this.listMemories(
        ownerId,
        { ...(filter && { filter }), ...(after && { after }), limit: 500 },
        o,
      );
      yield* page.memories;
      after = page.next ?? undefined;
    } while (after);
  }
  /** Every held memory of the owner, from the streamed export (operator or user). */
  async exportMemories(ownerId: string, o?: CallOptions): Promise<Memory[]> {
    const text = await this.call<string>('exportJsonl', { params: { ownerId } }, o);
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Memory);
  }
  exportPage(ownerId: string, page: { after?: string; limit?: number } = {}, o?: CallOptions) {
    return this.call<Out<'exportPage'>>('exportPage', { params: { ownerId }, query: page }, o);
  }
  listSessions(ownerId: string, opts: { limit?: number } = {}, o?: CallOptions) {
    return this.call<Out<'listSessions'>>('listSessions', { params: { ownerId }, query: opts }, o);
  }
  sessionContext(
    ownerId: string,
    sessionId: string,
    query?: string,
    options: Omit<RecallOptions, 'filter'> = {},
    o?: CallOptions,
  ) {
    return this.call<Out<'sessionContext'>>(
      'sessionContext',
      { params: { ownerId, sessionId }, query: { ...(options as Query), query } },
      o,
    );
  }
  readSession(ownerId: string, sessionId: string, opts: { limit?: number } = {}, o?: CallOptions) {
    return this.call<Out<'readSession'>>(
      'readSession',
      { params: { ownerId, sessionId }, query: opts },
      o,
    );
  }

  /** Which reads served the owner's memories, newest first; `memoryId` for one memory's. */
  readLog(
    ownerId: string,
    opts: { memoryId?: string; limit?: number; before?: string } = {},
    o?: CallOptions,
  ) {
    return this.call<Out<'readLog'>>('readLog', { params: { ownerId }, query: opts }, o);
  }

  // --- deletion -------------------------------------------------------------

  /** Forget memories with what was derived from them; `dryRun` lists what would go, deleting nothing. */
  forget(
    ownerId: string,
    ids: readonly string[],
    opts: { dryRun: true },
    o?: CallOptions,
  ): Promise<DeletionPreview>;
  forget(
    ownerId: string,
    ids: readonly string[],
    opts?: { dryRun?: false },
    o?: CallOptions,
  ): Promise<DeletionReceipt>;
  forget(
    ownerId: string,
    ids: readonly string[],
    opts?: { dryRun?: boolean },
    o?: CallOptions,
  ): Promise<Out<'forget'>>;
  forget(
    ownerId: string,
    ids: readonly string[],
    opts: { dryRun?: boolean } = {},
    o?: CallOptions,
  ) {
    return this.call<Out<'forget'>>('forget', { params: { ownerId }, body: { ids, ...opts } }, o);
  }
  verifyForgotten(
    ownerId: string,
    what: { ids: readonly string[]; contentHashes?: readonly string[] },
    o?: CallOptions,
  ) {
    return this.call<Out<'verifyForgotten'>>(
      'verifyForgotten',
      { params: { ownerId }, body: what },
      o,
    );
  }
  forgetOwner(ownerId: string, o?: CallOptions) {
    return this.call<Out<'forgetOwner'>>('forgetOwner', { params: { ownerId } }, o);
  }
  /** Forget what came from a URL, document or tool; `dryRun` lists what would go, deleting nothing. */
  revokeSource(
    ownerId: string,
    source: { uri?: string; tool?: string },
    opts: { dryRun: true },
    o?: CallOptions,
  ): Promise<DeletionPreview>;
  revokeSource(
    ownerId: string,
    source: { uri?: string; tool?: string },
    opts?: { dryRun?: false },
    o?: CallOptions,
  ): Promise<DeletionReceipt>;
  revokeSource(
    ownerId: string,
    source: { uri?: string; tool?: string },
    opts?: { dryRun?: boolean },
    o?: CallOptions,
  ): Promise<Out<'revokeSource'>>;
  revokeSource(
    ownerId: string,
    source: { uri?: string; tool?: string },
    opts: { dryRun?: boolean } = {},
    o?: CallOptions,
  ) {
    return this.call<Out<'revokeSource'>>(
      'revokeSource',
      { params: { ownerId }, body: { ...source, ...opts } },
      o,
    );
  }
  /** Forget a session with what it produced; `dryRun` lists what would go. */
  forgetSession(
    ownerId: string,
    sessionId: string,
    opts: { dryRun?: boolean } = {},
    o?: CallOptions,
  ) {
    return this.call<Out<'forgetSession'>>(
      'forgetSession',
      { params: { ownerId, sessionId }, body: opts },
      o,
    );
  }
  /** Delete a session's buffer messages, or one of them (`seq`). */
  deleteSession(ownerId: string, sessionId: string, seq?: number, o?: CallOptions) {
    return seq === undefined
      ? this.call<Out<'deleteSession'>>('deleteSession', { params: { ownerId, sessionId } }, o)
      : this.call<Out<'deleteSession'>>(
          'deleteSessionMessage',
          { params: { ownerId, sessionId, seq } },
          o,
        );
  }

  // --- the caller -------------------------------------------------------------

  /** What the credential says: principal, role, owners (`'all'`: every owner) and expiry. */
  whoami(o?: CallOptions) {
    return this.call<Out<'whoami'>>('whoami', {}, o);
  }
  /** The owners holding memories that the caller may see, page by page (operators, analysts). */
  listOwners(page: { after?: string; limit?: number } = {}, o?: CallOptions) {
    return this.call<Out<'listOwners'>>('listOwners', { query: page }, o);
  }

  // --- operators ------------------------------------------------------------

  async auditList(
    filter: { ownerId?: string; afterSeq?: number; limit?: number } = {},
    o?: CallOptions,
  ) {
    return (await this.call<{ events: Out<'auditList'> }>('auditList', { query: filter }, o))
      .events;
  }
  auditVerify(o?: CallOptions) {
    return this.call<Out<'auditVerify'>>('auditVerify', {}, o);
  }
  kpis(opts: { ownerId?: string; toleranceMs?: number } = {}, o?: CallOptions) {
    return this.call<Out<'kpis'>>('kpis', { query: opts }, o);
  }
  expireDue(o?: CallOptions) {
    return this.call<Out<'expireDue'>>('expireDue', {}, o);
  }
  createKey(
    key: { name: string; role: string; owners: 'all' | readonly string[]; expiresIn?: string },
    o?: CallOptions,
  ) {
    return this.call<Out<'createKey'>>('createKey', { body: key }, o);
  }
  async listKeys(o?: CallOptions) {
    return (await this.call<{ keys: Out<'listKeys'> }>('listKeys', {}, o)).keys;
  }
  revokeKey(id: string, o?: CallOptions) {
    return this.call<Out<'revokeKey'>>('revokeKey', { params: { id } }, o);
  }
}
