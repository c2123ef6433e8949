// The KeepGraph HTTP client. Each method is a route of the API, named by the
// use-case it runs (routes.ts spells each route exactly as the server
// declares it; a test holds the two together), and its result type is the
// engine method's own (`Out<N>`), so no response type is copied by hand.
// fetch-based: Node 20 and browsers. Every write carries an Idempotency-Key
// (the caller's, or a fresh one), so a retry after 429 or 503 can never
// write twice; transport.ts sends and retries.
import type {
  CorrectionInput,
  DeletionPreview,
  ImportReport,
  MemoryFilter,
  MemoryInput,
  RecallOptions,
  SessionAppendInput,
  Memory,
  Engine,
  Caller,
} from '@keepgraph/core';
import type { DeletionReceipt } from '@keepgraph/core/ports';
import { EXPOSED, type ExposedName } from './exposed.generated.ts';
import type { Out, RouteName } from './routes.ts';
import {
  send,
  transportOf,
  type CallOptions,
  type ClientOptions,
  type Query,
  type Request,
  type Transport,
} from './transport.ts';

export { ROUTES, type Out, type RouteName } from './routes.ts';
export type { CallOptions, ClientOptions } from './transport.ts';
export type { ExposedName } from './exposed.generated.ts';

/** An engine method's arguments after the caller: what `invoke` takes for a use-case. */
export type UseCaseArgs<N extends ExposedName> =
  Parameters<Engine[N]> extends [Caller, ...infer A] ? A : never;

type DryRun = boolean | undefined;

/**
 * What a deletion answers: with `dryRun: true` what would go (deleting
 * nothing), without it the receipt; either, for a `dryRun` only known when
 * the call runs.
 */
export type DeletionAnswer<D extends DryRun> = D extends true ? DeletionPreview : DeletionReceipt;

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
  private readonly transport: Transport;

  constructor(opts: ClientOptions) {
    this.transport = transportOf(opts);
  }

  /** One route, with retries; answers the parsed body (or the raw text for JSON lines). */
  call<T>(route: RouteName, req: Request = {}, call: CallOptions = {}): Promise<T> {
    return send<T>(this.transport, route, req, call);
  }

  /**
   * Any use-case whose registry row declares its exposure, by name, with
   * the engine method's arguments: `invoke('ownerStats', ['alice'])`. The
   * binding (which argument goes in the path, the query or the body) is
   * generated from the registry (exposed.generated.ts), so a new exposed
   * use-case needs no change here.
   */
  invoke<N extends ExposedName>(name: N, args: UseCaseArgs<N>, o?: CallOptions): Promise<Out<N>> {
    const b = EXPOSED[name];
    const params: Record<string, string> = {};
    let rest: Record<string, unknown> | undefined;
    b.args.forEach((a, i) => {
      const v = (args as readonly unknown[])[i];
      if (a.in === 'path') params[a.name] = String(v);
      else if (a.in === 'whole') rest = v as Record<string, unknown> | undefined;
      else if (v !== undefined) rest = { ...rest, [a.name]: v };
    });
    return this.call(
      name,
      {
        params,
        ...(rest !== undefined &&
          (b.restIn === 'query' ? { query: rest as Query } : { body: rest })),
      },
      o,
    );
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
  forget<D extends DryRun = undefined>(
    ownerId: string,
    ids: readonly string[],
    opts: { dryRun?: D } = {},
    o?: CallOptions,
  ) {
    return this.call<DeletionAnswer<D>>(
      'forget',
      { params: { ownerId }, body: { ids, ...opts } },
      o,
    );
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
  revokeSource<D extends DryRun = undefined>(
    ownerId: string,
    source: { uri?: string; tool?: string },
    opts: { dryRun?: D } = {},
    o?: CallOptions,
  ) {
    return this.call<DeletionAnswer<D>>(
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
