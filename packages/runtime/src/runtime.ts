// The embedded runtime: composes core with its adapters (policy file, local
// embedding model, the store selected through store-factories.ts, and where
// the jobs run: the in-process background, or the outbox relayed to BullMQ
// queues in server mode) into one Engine. The server and the CLI's local
// commands both open it, so the wiring lives in exactly one place.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  KeepGraphError,
  createEngine,
  newAuditSecret,
  isKeepGraphError,
  type Engine,
  type Observer,
} from '@keepgraph/core';
import {
  startInProcessBackground,
  startRelay,
  type InProcessBackground,
  type QueueMetricsSource,
} from '@keepgraph/core/jobs';
import { DEFAULT_POLICY_PATH, loadPolicyFile } from '@keepgraph/core/policy';
import {
  systemClock,
  type Clock,
  type Embedder,
  type MemoryStore,
  type Extractor,
} from '@keepgraph/core/ports';
import type { Queue } from 'bullmq';
import { MODEL_IDS, createEmbedder, isModelId } from '@keepgraph/embedder';
import { redisConnection, type StoreSelection } from './config.ts';
import { DATA_DIR_MODE, prepareDataDir, stderrNotice } from './data-dir.ts';
import { storeFactory } from './store-factories.ts';

export { SQLITE_FILE_NAME } from './store-factories.ts';

/** Options of {@link openEmbeddedRuntime}. */
export interface EmbeddedRuntimeOptions {
  /** Folder holding `keepgraph.db` (SQLite store); created if missing. */
  dataDir: string;
  /** The store to open; the embedded SQLite store in `dataDir` by default. */
  store?: StoreSelection;
  /** Policy YAML; defaults to core's `DEFAULT_POLICY_PATH`. */
  policyPath?: string;
  /** Embedding model id; defaults to the embedder's default model. */
  modelId?: string;
  /** Where models are installed (see `scripts/setup-models.sh`). */
  modelsDir?: string;
  /**
   * Background jobs in this process (the embedded mode): the expiry sweep's
   * period in ms (overriding the policy's), or `null` for none: one-shot CLI
   * commands, tests, and server mode, where `keepgraph worker` processes run
   * the jobs the store's outbox holds.
   */
  sweepIntervalMs?: number | null;
  /** The reflection extractor; the built-in statement extractor by default. */
  extractor?: Extractor;
  clock?: Clock;
  /** An embedder to use instead of loading the local model (tests, benchmarks). */
  embedder?: Embedder;
  /**
   * Load the local model on the first embedding instead of at open (its
   * files are still checked at open): for one-shot CLI commands, most of
   * which embed nothing. Default false: a server warms it before listening.
   */
  lazyModel?: boolean;
  /** Called when a background job fails for good or the relay fails; the schedules go on either way. */
  onSweepError?: (e: unknown) => void;
  /**
   * Server mode: the jobs run in `keepgraph worker` processes over BullMQ on
   * this Redis, and this process relays its outbox to their queues (no
   * in-process background, whatever `sweepIntervalMs` says). `log` hears
   * what a shutdown left behind when Redis did not answer in time.
   */
  queue?: { redisUrl: string; prefix?: string; log?: (line: string) => void };
  /** The audit secret; unset: {@link AUDIT_SECRET_FILE} in `dataDir`, created if missing. */
  auditSecret?: string;
  /** Told what the engine and the in-process background did (the server's metrics). */
  observe?: Observer;
  /**
   * Told what the runtime changed that the operator should hear of (a data
   * directory made private); a line on stderr by default.
   */
  notice?: (message: string) => void;
}

/** A running engine with the resources it owns. */
export interface EmbeddedRuntime {
  engine: Engine;
  store: MemoryStore;
  /** The in-process background (relay, runner, schedules); null when jobs run elsewhere. */
  background: InProcessBackground | null;
  /**
   * Where the jobs wait, for their metrics: the BullMQ queues in server mode
   * (with the queues themselves, for Bull Board), the in-process runner in
   * the embedded mode; null when no job runs in or for this process.
   */
  jobs: { metrics: QueueMetricsSource; bullQueues?: readonly Queue[] } | null;
  dataDir: string;
  /** The audit secret the engine hashes with (a backup carries it: see backup.ts). */
  auditSecret: string;
  /**
   * Stop the relay and the queues (each within a deadline, so a Redis outage
   * cannot hold the shutdown) or the background (waiting for running jobs),
   * then close the store. Idempotent.
   */
  close(): Promise<void>;
}

/** File of the installation's audit secret inside the data dir (mode 0600). */
export const AUDIT_SECRET_FILE = 'audit.secret';

/**
 * The data dir's audit secret, made on first use. Every process opening the
 * same data dir (server, workers, CLI) reads the same one, so their keyed
 * hashes agree. `wx` makes a concurrent first start keep whichever won.
 */
async function dataDirAuditSecret(dataDir: string): Promise<string> {
  const path = join(dataDir, AUDIT_SECRET_FILE);
  await mkdir(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  try {
    await writeFile(path, `${newAuditSecret()}\n`, { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret.length < 32)
    throw new KeepGraphError(
      'store_unavailable',
      `${path} holds no audit secret (at least 32 characters); delete it to make a new one`,
    );
  return secret;
}

/** Turn an adapter's start-up failure into a coded error the CLI can explain. */
function unavailable(
  code: 'store_unavailable' | 'embedder_unavailable',
  what: string,
  e: unknown,
): KeepGraphError {
  if (isKeepGraphError(e)) return e;
  const reason = e instanceof Error ? e.message : String(e);
  const err = new KeepGraphError(code, `${what}: ${reason}`);
  (err as Error).cause = e;
  return err;
}

/**
 * Open the runtime: load and validate the policy first (nothing is
 * stored under an invalid policy), make the data directory private, then
 * the embedder, then the store sized
 * to the embedder's dimensions, then the engine and its background jobs.
 *
 * @throws KeepGraphError `invalid_policy`, `embedder_unavailable` or `store_unavailable`.
 */
export async function openEmbeddedRuntime(opts: EmbeddedRuntimeOptions): Promise<EmbeddedRuntime> {
  const policy = loadPolicyFile(opts.policyPath ?? DEFAULT_POLICY_PATH);

  const modelId = opts.modelId;
  if (modelId !== undefined && !isModelId(modelId)) {
    throw new KeepGraphError(
      'embedder_unavailable',
      `unknown embedding model ${JSON.stringify(modelId)}; one of ${MODEL_IDS.join(', ')}`,
      { modelId, allowed: [...MODEL_IDS] },
    );
  }

  const selection: StoreSelection = opts.store ?? { kind: 'sqlite' };
  const factory = storeFactory(selection.kind);
  // Before the store opens, so SQLite reopens files already private (its
  // -wal and -shm take the database file's mode), and before the model
  // loads, so a refusal comes at once. Created where this start writes into
  // it: the SQLite store, or the audit secret.
  try {
    await prepareDataDir(opts.dataDir, {
      create: factory.usesDataDir || opts.auditSecret === undefined,
      notice: opts.notice,
    });
  } catch (e) {
    throw unavailable(
      'store_unavailable',
      `could not prepare the data directory ${opts.dataDir}`,
      e,
    );
  }
  let embedder: Embedder;
  try {
    embedder =
      opts.embedder ??
      (await createEmbedder({
        ...(modelId !== undefined && { modelId }),
        ...(opts.modelsDir !== undefined && { modelsDir: opts.modelsDir }),
        ...(opts.lazyModel && { lazy: true }),
        // A model missing on first run is installed (a jar of the local
        // Maven repository, else a download), saying so on stderr.
        install: { log: opts.notice ?? stderrNotice },
      }));
  } catch (e) {
    throw unavailable('embedder_unavailable', 'could not load the embedding model', e);
  }

  const where = factory.where(selection, opts.dataDir);
  let store: MemoryStore;
  try {
    store = await factory.open(selection, opts.dataDir);
  } catch (e) {
    throw unavailable('store_unavailable', `could not open ${where}`, e);
  }
  try {
    await store.init({ dimensions: embedder.dimensions });
  } catch (e) {
    // Do not leak the open database handle or driver when migrations fail.
    await store.close().catch(() => {});
    throw unavailable('store_unavailable', `could not initialise ${where}`, e);
  }

  let auditSecret: string;
  try {
    auditSecret = opts.auditSecret ?? (await dataDirAuditSecret(opts.dataDir));
  } catch (e) {
    await store.close().catch(() => {});
    throw unavailable('store_unavailable', 'could not read the audit secret', e);
  }
  const engine = createEngine({
    store,
    embedder,
    policy,
    clock: opts.clock ?? systemClock,
    auditSecret,
    ...(opts.observe && { observe: opts.observe }),
  });
  // Server mode: the outbox is relayed to BullMQ, whose workers run the jobs.
  // Loaded in server mode only: BullMQ, ioredis and what they bring are
  // about 250 modules that every one-shot command on the embedded default
  // would load.
  const { queue } = opts;
  const workers = queue ? await import('@keepgraph/workers') : null;
  const bull =
    workers && queue
      ? new workers.BullMqJobQueue({
          connection: redisConnection(queue.redisUrl),
          ...(queue.prefix !== undefined && { prefix: queue.prefix }),
        })
      : null;
  const relay = bull
    ? startRelay(store, bull, {
        onError:
          opts.onSweepError ??
          ((e: unknown) => console.error('keepgraph: outbox relay failed:', e)),
      })
    : null;
  const background =
    opts.sweepIntervalMs === null || bull
      ? null
      : startInProcessBackground(engine, {
          schedules: true,
          // Unset: the policy's background.expiry.sweepEvery.
          ...(opts.sweepIntervalMs !== undefined ? { expiryEveryMs: opts.sweepIntervalMs } : {}),
          ...(opts.extractor ? { extractor: opts.extractor } : {}),
          // Without a handler a failing job would be silent: expired memories
          // stay hidden from retrieval but would never be purged.
          onError:
            opts.onSweepError ??
            ((e: unknown) => console.error('keepgraph: background job failed:', e)),
        });

  let closing: Promise<void> | null = null;
  const log = queue?.log ?? ((line: string) => console.warn(`keepgraph: closing ${line}`));
  return {
    engine,
    store,
    background,
    jobs: bull
      ? { metrics: bull, bullQueues: [...bull.queues.values()] }
      : background
        ? { metrics: background.runner }
        : null,
    dataDir: opts.dataDir,
    auditSecret,
    close() {
      // Both Fastify's onClose and a signal handler may call this.
      closing ??= (async () => {
        // The relay and the queues exist in server mode only, with `workers` loaded.
        if (workers && relay && bull) {
          await workers.closeWithin('outbox relay', () => relay.stop(), { log });
          await workers.closeWithin('BullMQ queues', () => bull.close(), { log });
        }
        await background?.stop();
        await store.close();
      })();
      return closing;
    },
  };
}
