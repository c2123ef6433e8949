// The store port's members as the kit runs them: their names at run time,
// what the kit checks of each call's arguments before a store sees it (the
// owner, every limit, vectors against the store's dimension), and how each
// stands to the read journal's group commit. Records rather than lists where
// tsc should make every new member choose.
import { KeepGraphError } from '../domain/errors.ts';
import type { MemoryStore, ReadLogQuery, StoreLifecycle } from './memory-store.ts';
import {
  checkEmbeddingUpdates,
  checkLimit,
  checkQueryVector,
  checkWriteBatch,
  requireName,
  requireOwner,
} from './store-checks.ts';

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
export const DIMENSION_CHECKS: {
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
