// Group commit for what a recall records: the read-log entry and its audit
// event. A recall used to wait for a write transaction of its own before it
// answered (two on Neo4j, a few milliseconds each at best); now it hands the
// entries here and answers, and they are written together, in the order
// they came, in one transaction per interval. The store kit flushes before
// every operation that writes or reads the read log or the audit, so the
// chain's order and what a query sees are as if each had been written at
// once. What a crash can lose: the entries accepted in the last interval
// (and during the flush running then); a clean close loses nothing.
import type { AuditEventInput } from '../domain/audit.ts';
import type { ReadLogEntry } from './memory-store.ts';

/** Default interval between a first accepted entry and its write, in ms. */
export const DEFAULT_READ_FLUSH_MS = 100;

/**
 * Accepted entries beyond which `accept` writes before it answers: a
 * bound on what a crash can lose and on memory when writes are slow.
 */
export const MAX_PENDING_READS = 1_000;

export type WriteReads = (
  reads: readonly ReadLogEntry[],
  audit: readonly AuditEventInput[],
) => Promise<void>;

export class ReadJournal {
  #reads: ReadLogEntry[] = [];
  #audit: AuditEventInput[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The last flush asked for; each runs after the one before it. */
  #tail: Promise<void> = Promise.resolve();
  /** The same run, with its failure. */
  #last: Promise<void> = Promise.resolve();
  #inFlight = 0;
  /** The last flush failed: the next accept writes before answering, so its caller sees why. */
  #failed = false;

  /** `intervalMs` 0 writes every accept before it answers. */
  constructor(
    private readonly write: WriteReads,
    private readonly intervalMs: number = DEFAULT_READ_FLUSH_MS,
  ) {
    if (!Number.isInteger(intervalMs) || intervalMs < 0)
      throw new RangeError('the read flush interval is a whole number of ms, 0 or more');
  }

  /** Entries accepted and not yet written (the read-log entries and audit events). */
  get pending(): number {
    return this.#reads.length + this.#audit.length;
  }

  /** Take entries; they are written within the interval, or now (see the constructor). */
  accept(reads: readonly ReadLogEntry[], audit: readonly AuditEventInput[]): Promise<void> {
    this.#reads.push(...reads);
    this.#audit.push(...audit);
    if (this.intervalMs === 0 || this.#failed || this.#reads.length >= MAX_PENDING_READS)
      return this.flush();
    this.#schedule();
    return Promise.resolve();
  }

  /**
   * Write everything accepted so far; resolves once it is committed. Asked
   * for while another flush runs, it fails if that one fails, without a try
   * of its own: while the store is away a write waits out the store's own
   * wait (5 s) before failing, and callers queued one behind the other each
   * waited it out again, the n-th n times (a key-value put behind two other
   * requests of a locked SQLite store answered after 12 s). What failed
   * stays accepted, for the next flush.
   */
  flush(): Promise<void> {
    if (this.pending === 0 && this.#inFlight === 0) return Promise.resolve();
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const ahead = this.#inFlight > 0 ? this.#last : null;
    this.#inFlight += 1;
    const run = this.#tail.then(async () => {
      if (ahead) await ahead;
      await this.#writePending();
    });
    this.#last = run;
    this.#tail = run.then(
      () => {
        this.#inFlight -= 1;
      },
      () => {
        this.#inFlight -= 1;
      },
    );
    return run;
  }

  async #writePending(): Promise<void> {
    if (this.pending === 0) return;
    const reads = this.#reads;
    const audit = this.#audit;
    this.#reads = [];
    this.#audit = [];
    try {
      await this.write(reads, audit);
      this.#failed = false;
    } catch (e) {
      // Kept, ahead of what came since, so the audit chain keeps their order.
      this.#reads = [...reads, ...this.#reads];
      this.#audit = [...audit, ...this.#audit];
      this.#failed = true;
      this.#schedule();
      throw e;
    }
  }

  #schedule(): void {
    if (this.#timer !== null || this.intervalMs === 0) return;
    // Not unref'd: a process that ends without close() still writes them.
    this.#timer = setTimeout(() => {
      this.#timer = null;
      // A failure here is kept (see #failed) and surfaces on the next accept or flush.
      this.flush().catch(() => undefined);
    }, this.intervalMs);
  }

  /** Resolves once no flush runs (whatever their outcome). */
  idle(): Promise<void> {
    return this.#tail;
  }

  /** Stop the timer without writing (after a failed final flush). */
  discardTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
