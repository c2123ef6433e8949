// The store kit: what every store does the same way, written once. A store
// supplies its context (what init() opens: a connection, prepared
// statements, tuning), the translation of its driver's errors, and one
// function per port member taking that context first. The kit checks the
// lifecycle (nothing before init(), nothing after close()), maps errors at
// the boundary, and turns synchronous operations into promises; a store
// class holds no pass-through methods.
import { KeepGraphError, type ErrorCode } from '../errors.ts';
import type { MemoryStore, ReadLogQuery, StoreLifecycle } from './memory-store.ts';
import { ReadJournal, DEFAULT_READ_FLUSH_MS } from './read-journal.ts';
import {
  checkEmbeddingUpdates,
  checkLimit,
  checkQueryVector,
  checkWriteBatch,
  requireName,
  requireOwner,
} from './store-checks.ts';
import { STORE_RULES, type StoreRules } from './store-rules.ts';

/** The port members a store implements as operations: all but the lifecycle (flush is the kit's). */
export type StoreOperationName = Exclude<keyof MemoryStore, keyof StoreLifecycle>;

/** Each port member as a function of the store's context, synchronous or not. */
export type StoreOperations<C> = {
  [K in StoreOperationName]: (
    ctx: C,
    ...args: Parameters<MemoryStore[K]>
  ) => Awaited<ReturnType<MemoryStore[K]>> | ReturnType<MemoryStore[K]>;
};

/** Every operation name, at run time (the kit binds each). */
export const STORE_OPERATIONS = [
  'write',
  'deleteCascade',
  'getById',
  'getByIds',
  'getByKey',
  'findBySource',
  'listIds',
  'listOwners',
  'countMemories',
  'lowestValue',
  'dueForExpiry',
  'derivedFrom',
  'nextInSession',
  'previousInSession',
  'relations',
  'searchVector',
  'searchText',
  'searchEntities',
  'listSessions',
  'sessionMessages',
  'trimSession',
  'deleteSessionMessages',
  'deleteOwnerResidue',
  'logReads',
  'readLog',
  'outboxPending',
  'outboxAck',
  'unreflectedEpisodes',
  'countUnreflected',
  'recentSources',
  'duePasses',
  'staleEmbeddings',
  'replaceEmbeddings',
  'getEmbeddings',
  'appendAudit',
  'listAudit',
  'findTraces',
  'counts',
  'saveApiKey',
  'getApiKey',
  'listApiKeys',
  'revokeApiKey',
  'observedIn',
  'claimIdempotency',
  'completeIdempotency',
  'releaseIdempotency',
] as const satisfies readonly StoreOperationName[];

// tsc fails here if a port member is missing from the list above.
type Missing = Exclude<StoreOperationName, (typeof STORE_OPERATIONS)[number]>;
const everyOperationListed: [Missing] extends [never] ? true : Missing = true;
void everyOperationListed;

const owner = (ownerId: string): void => requireOwner(ownerId);
const ownerAndLimit = (ownerId: string, opts: { limit: number }): void => {
  requireOwner(ownerId);
  checkLimit(opts.limit);
};
/** A read-log query: its owner and limit, a non-blank memory id, an ISO `before`. */
const readLogQuery = (ownerId: string, opts: ReadLogQuery): void => {
  ownerAndLimit(ownerId, opts);
  if (opts.memoryId !== undefined && (typeof opts.memoryId !== 'string' || opts.memoryId === ''))
    throw new KeepGraphError('invalid_input', 'memoryId must be a non-blank string');
  if (
    opts.before !== undefined &&
    (typeof opts.before !== 'string' || Number.isNaN(Date.parse(opts.before)))
  )
    throw new KeepGraphError('invalid_input', 'before must be an ISO time');
};
const ownerThenLimit = (ownerId: string, _x: unknown, opts: { limit: number }): void =>
  ownerAndLimit(ownerId, opts);

/**
 * What the kit checks of an operation's arguments before the store sees
 * them: the owner of every owner-scoped member (`owner_required`) and every
 * `limit` (`invalid_input`). Stores check only what needs their state (the
 * vector dimension, a batch against `checkWriteBatch`).
 */
export const ARGUMENT_CHECKS: {
  [K in StoreOperationName]: ((...args: Parameters<MemoryStore[K]>) => void) | null;
} = {
  write: null,
  deleteCascade: (req) => requireOwner(req.ownerId),
  getById: owner,
  getByIds: owner,
  getByKey: owner,
  findBySource: owner,
  listIds: (ownerId, opts) => {
    requireOwner(ownerId);
    if (opts?.limit !== undefined) checkLimit(opts.limit);
  },
  listOwners: (opts) => {
    if (opts?.limit !== undefined) checkLimit(opts.limit);
  },
  countMemories: owner,
  lowestValue: (ownerId, limit) => ownerAndLimit(ownerId, { limit }),
  dueForExpiry: (_now, limit) => checkLimit(limit),
  derivedFrom: owner,
  nextInSession: owner,
  previousInSession: owner,
  relations: owner,
  searchVector: ownerThenLimit,
  searchText: ownerThenLimit,
  searchEntities: ownerThenLimit,
  listSessions: ownerAndLimit,
  sessionMessages: ownerThenLimit,
  trimSession: (ownerId, _s, keep) => ownerAndLimit(ownerId, { limit: keep }),
  deleteSessionMessages: owner,
  deleteOwnerResidue: owner,
  logReads: (reads) => {
    for (const r of reads) requireOwner(r.ownerId);
  },
  readLog: readLogQuery,
  outboxPending: checkLimit,
  outboxAck: null,
  unreflectedEpisodes: ownerAndLimit,
  countUnreflected: owner,
  recentSources: ownerAndLimit,
  duePasses: (schedule, opts) => {
    requireName(schedule, 'schedule');
    checkLimit(opts.limit);
  },
  staleEmbeddings: (ownerId, _model, limit) => ownerAndLimit(ownerId, { limit }),
  replaceEmbeddings: owner,
  getEmbeddings: owner,
  appendAudit: null,
  listAudit: (opts) => checkLimit(opts.limit),
  findTraces: owner,
  counts: (opts) => {
    if (opts?.ownerId !== undefined) requireOwner(opts.ownerId);
  },
  saveApiKey: null,
  getApiKey: null,
  listApiKeys: null,
  revokeApiKey: null,
  observedIn: owner,
  claimIdempotency: null,
  completeIdempotency: null,
  releaseIdempotency: null,
};

/**
 * What the kit checks against the store's vector dimension, once init() has
 * fixed it, before the operation runs: a batch, replacement vectors and a
 * query vector of another size are `invalid_input` before any lock is taken.
 */
const DIMENSION_CHECKS: {
  [K in StoreOperationName]?: (dimensions: number, ...args: Parameters<MemoryStore[K]>) => void;
} = {
  write: (dimensions, batch) => checkWriteBatch(batch, dimensions),
  replaceEmbeddings: (dimensions, _ownerId, updates) => checkEmbeddingUpdates(updates, dimensions),
  searchVector: (dimensions, _ownerId, vector) => checkQueryVector(vector, dimensions),
};

/**
 * How each operation stands to the reads `logReads` has accepted and not yet
 * written. `free`: it neither writes anything nor reads the read log or the
 * audit, so it runs without waiting for them. `flushes`: it writes them
 * first, so the audit chain's order and what it reads are as if each read
 * had been written at once. `accepts`: logReads itself. A record rather than
 * a list, so that tsc makes every new operation choose.
 */
export const READ_JOURNAL_USE: Readonly<
  Record<StoreOperationName, 'free' | 'flushes' | 'accepts'>
> = {
  write: 'flushes',
  deleteCascade: 'flushes',
  getById: 'free',
  getByIds: 'free',
  getByKey: 'free',
  findBySource: 'free',
  listIds: 'free',
  listOwners: 'free',
  countMemories: 'free',
  lowestValue: 'free',
  dueForExpiry: 'free',
  derivedFrom: 'free',
  nextInSession: 'free',
  previousInSession: 'free',
  relations: 'free',
  searchVector: 'free',
  searchText: 'free',
  searchEntities: 'free',
  listSessions: 'free',
  sessionMessages: 'free',
  trimSession: 'flushes',
  deleteSessionMessages: 'flushes',
  deleteOwnerResidue: 'flushes',
  logReads: 'accepts',
  readLog: 'flushes',
  outboxPending: 'free',
  outboxAck: 'flushes',
  unreflectedEpisodes: 'free',
  countUnreflected: 'free',
  recentSources: 'free',
  duePasses: 'free',
  staleEmbeddings: 'free',
  replaceEmbeddings: 'flushes',
  getEmbeddings: 'free',
  appendAudit: 'flushes',
  listAudit: 'flushes',
  findTraces: 'flushes',
  counts: 'flushes',
  saveApiKey: 'flushes',
  getApiKey: 'free',
  listApiKeys: 'free',
  revokeApiKey: 'flushes',
  observedIn: 'free',
  claimIdempotency: 'flushes',
  completeIdempotency: 'flushes',
  releaseIdempotency: 'flushes',
};

/** The operations that run without flushing the accepted reads (see READ_JOURNAL_USE). */
export const JOURNAL_FREE: ReadonlySet<StoreOperationName> = new Set(
  STORE_OPERATIONS.filter((name) => READ_JOURNAL_USE[name] === 'free'),
);

/** What every store built on the kit takes. */
export interface KitOptions {
  /**
   * How long read-log entries and their audit events wait to be written
   * together (group commit), in ms; 0 writes each before its recall
   * answers. Default 100: a crash loses at most the last 100 ms of them.
   */
  readFlushMs?: number;
}

/** A KeepGraphError for a driver error, the driver's own error kept on `cause` for logs. */
export function storeError(code: ErrorCode, message: string, cause: unknown): KeepGraphError {
  const err = new KeepGraphError(code, message);
  (err as Error).cause = cause;
  return err;
}

/**
 * Map a thrown value to a KeepGraphError where a code applies: our own
 * errors pass, a RangeError (a value the driver cannot encode) is
 * `invalid_input`, and `driverError` names the driver's own (null: none
 * applies, the value passes through).
 */
export function toStoreError(
  e: unknown,
  driverError: (e: unknown) => KeepGraphError | null,
): unknown {
  if (e instanceof KeepGraphError) return e;
  // The driver's own wording (parameter counts, integer sizes) stays on `cause`.
  if (e instanceof RangeError)
    return storeError('invalid_input', 'a value is outside what the store can hold', e);
  return driverError(e) ?? e;
}

/**
 * Read a store's migration files: a history that cannot be ordered (two
 * files of one version, graph-schema's MigrationFilesError) refuses the
 * store's init with `store_unavailable` and the error's reason.
 */
export function readMigrationsOrRefuse<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    const reason = (e as { reason?: unknown }).reason;
    if (typeof reason !== 'string') throw e;
    throw new KeepGraphError('store_unavailable', (e as Error).message, { reason });
  }
}

/** A migration as a store's ledger records it. */
export interface LedgerRow {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Migrations are append-only: refuse (`store_unavailable`) a ledger that
 * names a file no longer there, or a file whose text changed after it was
 * applied.
 */
export function checkMigrationLedger(
  files: readonly { version: number; file: string; checksum: string }[],
  rows: readonly LedgerRow[],
): void {
  const byVersion = new Map(files.map((f) => [f.version, f]));
  for (const row of rows) {
    const file = byVersion.get(row.version);
    if (!file)
      throw new KeepGraphError(
        'store_unavailable',
        `applied migration ${row.version}-${row.name} is missing`,
        { reason: 'migration_missing', version: row.version },
      );
    if (file.checksum !== row.checksum)
      throw new KeepGraphError(
        'store_unavailable',
        `migration ${file.file} changed after it was applied; add a new migration instead`,
        { reason: 'migration_checksum_mismatch', version: row.version },
      );
  }
}

/**
 * The base of every store class: give it the operations; implement `open`
 * (returns the context), `shutdown` and `driverError`. Each port member is
 * then an own method that runs its operation on the open context.
 */
// The interface half of the pair declares the members the constructor binds.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class KitStore<C> {
  abstract readonly kind: string;
  // ES private fields: a store class's own fields can never collide with these.
  #ctx: C | null = null;
  #dimensions = 0;
  #closed = false;
  readonly #journal: ReadJournal;

  constructor(operations: StoreOperations<C>, kit: KitOptions = {}) {
    const self = this as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of STORE_OPERATIONS) {
      // logReads is bound below, once the journal exists.
      if (READ_JOURNAL_USE[name] === 'accepts') continue;
      const op = operations[name] as (ctx: C, ...args: unknown[]) => unknown;
      const argumentCheck = ARGUMENT_CHECKS[name] as ((...args: unknown[]) => void) | null;
      const dimensionCheck = DIMENSION_CHECKS[name] as
        ((dimensions: number, ...args: unknown[]) => void) | undefined;
      const check = (...args: unknown[]): void => {
        argumentCheck?.(...args);
        dimensionCheck?.(this.#dimensions, ...args);
      };
      self[name] =
        READ_JOURNAL_USE[name] === 'free'
          ? (...args: unknown[]) =>
              this.run((c) => {
                check(...args);
                return op(c, ...args);
              })
          : (...args: unknown[]) =>
              this.run(async (c) => {
                check(...args);
                await this.#journal.flush();
                return op(c, ...args);
              });
    }
    const writeReads = operations.logReads;
    this.#journal = new ReadJournal(
      (reads, audit) => this.run((c) => writeReads(c, reads, audit)),
      kit.readFlushMs ?? DEFAULT_READ_FLUSH_MS,
    );
    // Accepting is the port's logReads; the journal writes through the store's own operation.
    self.logReads = (...args: unknown[]) =>
      this.run(() => {
        const [reads, audit] = args as Parameters<MemoryStore['logReads']>;
        ARGUMENT_CHECKS.logReads?.(reads, audit);
        return this.#journal.accept(reads, audit);
      });
  }

  /**
   * Open what the operations need (migrations, statements); called once by
   * init(). The context keeps `rules`: the engine's decisions the
   * operations apply inside their transactions (store-rules.ts).
   */
  protected abstract open(opts: { dimensions: number; rules: StoreRules }): Promise<C>;
  /** Release the connection; called once by close(). */
  protected abstract shutdown(): Promise<void>;
  /** This driver's errors as KeepGraphErrors (see toStoreError), or null. */
  protected abstract driverError(e: unknown): KeepGraphError | null;

  async init(opts: { dimensions: number }): Promise<void> {
    this.#ensureOpen();
    this.#ctx = await this.#mapErrors(() => this.open({ ...opts, rules: STORE_RULES }));
    this.#dimensions = opts.dimensions;
  }

  /** Write the reads `logReads` has accepted and not yet written. */
  flush(): Promise<void> {
    return this.run(() => this.#journal.flush());
  }

  /**
   * Flush, then release the connection. A flush that fails still closes
   * the store, and close() then rejects with its error: those reads are lost.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    let lost: unknown = null;
    // A flush of its own, after any running one: its failure is not this one's.
    if (this.#ctx !== null)
      await this.#journal
        .idle()
        .then(() => this.#journal.flush())
        .catch((e: unknown) => (lost = e));
    this.#journal.discardTimer();
    this.#closed = true;
    this.#ctx = null;
    await this.shutdown();
    if (lost !== null) throw toStoreError(lost, (x) => this.driverError(x));
  }

  /** Run `fn` on the open context, errors mapped; for store-specific extras beside the port. */
  protected run<T>(fn: (ctx: C) => T | Promise<T>): Promise<T> {
    return this.#mapErrors(() => {
      this.#ensureOpen();
      if (this.#ctx === null)
        throw new KeepGraphError('store_unavailable', 'call init() before using the store');
      return fn(this.#ctx);
    });
  }

  protected get isClosed(): boolean {
    return this.#closed;
  }

  #ensureOpen(): void {
    if (this.#closed) throw new KeepGraphError('store_unavailable', 'the store is closed');
  }

  async #mapErrors<T>(fn: () => T | Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw toStoreError(e, (x) => this.driverError(x));
    }
  }
}

export interface KitStore<C> extends Omit<MemoryStore, keyof StoreLifecycle> {
  /** The context type, for stores' own helpers (never read). */
  readonly __context?: C;
}
