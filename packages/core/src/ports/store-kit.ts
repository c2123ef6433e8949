// The store kit: what every store does the same way, written once. A store
// supplies its context (what init() opens: a connection, prepared
// statements, tuning), the translation of its driver's errors, and one
// function per port member taking that context first. The kit checks the
// lifecycle (nothing before init(), nothing after close()), maps errors at
// the boundary, and turns synchronous operations into promises; a store
// class holds no pass-through methods.
import { KeepGraphError, type ErrorCode } from '../domain/errors.ts';
import type { MemoryStore, StoreLifecycle } from './memory-store.ts';
import { ReadJournal, DEFAULT_READ_FLUSH_MS } from './read-journal.ts';
import {
  ARGUMENT_CHECKS,
  DIMENSION_CHECKS,
  READ_JOURNAL_USE,
  STORE_OPERATIONS,
  type StoreOperations,
} from './store-operations.ts';
import { STORE_RULES, type StoreRules } from './store-rules.ts';

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
  #schemaVersion = 0;
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
   * operations apply inside their transactions (store-rules.ts). Says too
   * which schema version the migrations left the store at.
   */
  protected abstract open(opts: {
    dimensions: number;
    rules: StoreRules;
  }): Promise<{ context: C; schemaVersion: number }>;
  /** Release the connection; called once by close(). */
  protected abstract shutdown(): Promise<void>;
  /** This driver's errors as KeepGraphErrors (see toStoreError), or null. */
  protected abstract driverError(e: unknown): KeepGraphError | null;

  async init(opts: { dimensions: number }): Promise<void> {
    this.#ensureOpen();
    const opened = await this.#mapErrors(() => this.open({ ...opts, rules: STORE_RULES }));
    this.#ctx = opened.context;
    this.#schemaVersion = opened.schemaVersion;
    this.#dimensions = opts.dimensions;
  }

  /** The highest migration applied to the store (0 before init). */
  get schemaVersion(): number {
    return this.#schemaVersion;
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
