// Memory routes: write one, write a batch, correct one, read one, its lineage, delete one,
// and export an owner's held memories page by page.
import { z } from 'zod';
import {
  CorrectionResultSchema,
  ExportPageSchema,
  ImportReportSchema,
  KeepGraphError,
  MemoryPageSchema,
  MemorySchema,
  RememberManyResultSchema,
  RememberResultSchema,
  SerializedGraphSchema,
} from '@keepgraph/core';
import { DeletionReceiptSchema } from '@keepgraph/core/ports';
import * as req from '../schemas/requests.ts';
import { definedOnly, routeFamily, useCaseRoute } from './use-case-route.ts';

/**
 * Bigger than the default body limit: a batch carries up to 1000 memories.
 * Single writes keep the small limit so oversized text is refused early.
 */
export const BATCH_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** An import carries up to 10,000 lines of JSONL. */
export const IMPORT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** The batch's list is ours to check; the engine validates each item. */
function batchItems(body: unknown): unknown[] {
  const { memories } = body as { memories?: unknown };
  if (!Array.isArray(memories)) {
    throw new KeepGraphError('invalid_input', 'memories: must be a list of memories', {
      issues: [{ path: 'memories', message: 'must be a list of memories' }],
    });
  }
  return memories;
}

export const memoryRoutes = routeFamily('memories', [
  useCaseRoute('remember')({
    route: 'POST /owners/:ownerId/memories',
    summary: 'Store one memory (through the policy gate)',
    params: req.OwnerParams,
    body: req.MemoryBody,
    status: 201,
    response: RememberResultSchema,
    args: ({ params, body }) => [params.ownerId, body],
  }),
  // `::` is find-my-way's escape for a literal colon (Google-style custom method).
  useCaseRoute('rememberMany')({
    route: 'POST /owners/:ownerId/memories::batch',
    summary: 'Store many memories; refusals are reported by index and do not stop the rest',
    params: req.OwnerParams,
    body: req.MemoryBatchBody,
    bodyLimit: BATCH_BODY_LIMIT_BYTES,
    response: RememberManyResultSchema,
    args: ({ params, body }) => [params.ownerId, batchItems(body)],
  }),
  useCaseRoute('importMemories')({
    route: 'POST /owners/:ownerId/import',
    summary:
      'Import JSONL lines (memory inputs, or memories as export writes them) through the write gate, with a report per line',
    description:
      'Send `{"lines": [...], "firstLine": 1}` as JSON, or the JSONL file itself as `application/x-ndjson`. At most 10,000 lines a call; exported derived memories are skipped (their sources get new ids).',
    params: req.OwnerParams,
    body: req.ImportBody,
    bodyLimit: IMPORT_BODY_LIMIT_BYTES,
    response: ImportReportSchema,
    args: ({ params, body }) => [params.ownerId, body],
  }),
  useCaseRoute('get')({
    route: 'GET /owners/:ownerId/memories/:id',
    summary: 'Read one memory of this owner',
    params: req.MemoryParams,
    response: MemorySchema,
    args: ({ params }) => [params.ownerId, params.id],
  }),
  useCaseRoute('correct')({
    route: 'PATCH /owners/:ownerId/memories/:id',
    summary:
      'Correct a memory: a new version through the write gate that supersedes it (audited `corrected`); what was derived from it is re-derived',
    description:
      "The correction's authority is the caller's. A lower authority does not supersede a higher one: its correction is kept beside it, flagged as a conflict. Fields not given (kind, key, origin, tags, sensitivity, entities) are the old version's.",
    params: req.MemoryParams,
    body: req.CorrectionBody,
    response: CorrectionResultSchema,
    args: ({ params, body }) => [params.ownerId, params.id, body],
  }),
  useCaseRoute('lineage')({
    route: 'GET /owners/:ownerId/memories/:id/lineage',
    summary: 'The derivation graph from a memory down to its episodes (graphology format)',
    params: req.MemoryParams,
    response: SerializedGraphSchema,
    args: ({ params }) => [params.ownerId, params.id],
  }),
  useCaseRoute('forget')({
    route: 'DELETE /owners/:ownerId/memories/:id',
    tags: ['forget'],
    summary: 'Forget a memory and everything derived from it; answers with a receipt',
    params: req.MemoryParams,
    response: DeletionReceiptSchema,
    args: ({ params }) => [params.ownerId, [params.id]],
  }),
  useCaseRoute('listMemories')({
    route: 'GET /owners/:ownerId/memories',
    summary: "The owner's memories, page by page, with filters; audited as a read",
    description:
      'Filters combine (all must hold). Pages follow id order; pass `next` as `after`. A call reads at most 5,000 memories, so with a rare filter a page may be short, even empty, and not the last: `next` is null only once every memory has been read.',
    params: req.OwnerParams,
    querystring: req.ListQuery,
    response: MemoryPageSchema,
    args: ({ params, query }) => {
      const { after, limit, kind, authority, ...rest } = query;
      return [
        params.ownerId,
        definedOnly({
          after,
          limit,
          filter: definedOnly({ ...rest, kinds: kind, authorities: authority }),
        }),
      ];
    },
  }),
  useCaseRoute('exportPage')({
    route: 'GET /owners/:ownerId/export.jsonl',
    summary:
      'Every held memory of the owner as JSON lines, streamed (operator or user); each page read is audited',
    description:
      'One memory per line with all its fields: id, origin and source origins, authority, expiry, derivedFrom (lineage) and supersedes (the version it replaced). `POST /owners/:ownerId/import` takes the file back.',
    params: req.OwnerParams,
    response: z.string().describe('application/x-ndjson: one memory per line'),
    args: ({ params }) => [params.ownerId, { limit: 500 }],
    jsonl: {
      lines: (page) => page.memories,
      next: (page, { params }) =>
        page.next === null ? null : [params.ownerId, { after: page.next, limit: 500 }],
    },
  }),
  useCaseRoute('exportPage')({
    route: 'GET /owners/:ownerId/export',
    summary:
      "One page of the owner's held memories, oldest first (operator or user); audited as a read",
    description:
      'Pass `next` of a page as `after` for the following one; `next` is null on the last.',
    params: req.OwnerParams,
    querystring: req.ExportQuery,
    response: ExportPageSchema,
    args: ({ params, query }) => [params.ownerId, definedOnly(query)],
  }),
]);
