// The answers the API documents by name: each a component of the OpenAPI
// document (`#/components/schemas/Memory`, …) that routes refer to, so a
// client generator names its models as these ids say. The Python client's
// models are generated from them (clients/python/codegen, `pnpm generate`).
import { z } from 'zod';
import {
  CorrectionResultSchema,
  ForgottenCheckSchema,
  ImportReportSchema,
  MemoryPageSchema,
  MemorySchema,
  ReadLogPageSchema,
  RecallResultSchema,
  RememberManyResultSchema,
  RememberResultSchema,
  SerializedGraphSchema,
  SessionAppendResultSchema,
  SessionContextSchema,
  SessionDeletionSchema,
  SessionForgettingSchema,
  SessionMessagesSchema,
  StoredOriginSchema,
  USE_CASES,
  WhoAmISchema,
  WhyResultSchema,
  unwrapSchema,
  type ExposedUseCase,
} from '@keepgraph/core';
import {
  DeletionReceiptSchema,
  MessageWriterSchema,
  SessionSummarySchema,
} from '@keepgraph/core/ports';
import * as res from './responses.ts';

export const NAMED_RESULTS = z.registry<{ id: string }>();

/** A field's schema under its optional, nullable or default wrappers. */
const fieldOf = (o: z.ZodObject, field: string): z.ZodType =>
  unwrapSchema(o.shape[field] as z.ZodType);
/** The element schema of an array field. */
const itemOf = (o: z.ZodObject, field: string): z.ZodType =>
  (fieldOf(o, field) as z.ZodArray<z.ZodType>).element;

const NAMES: Record<string, z.ZodType> = {
  Tool: fieldOf(StoredOriginSchema, 'tool'),
  Source: fieldOf(StoredOriginSchema, 'source'),
  Origin: StoredOriginSchema,
  Failure: itemOf(RememberManyResultSchema, 'failed'),
  RecallHit: itemOf(RecallResultSchema, 'results'),
  Trace: itemOf(ForgottenCheckSchema, 'traces'),
  SessionWriter: unwrapSchema(MessageWriterSchema),
  SessionMessage: itemOf(SessionMessagesSchema, 'messages'),
  SessionSummary: SessionSummarySchema,
  ReadRecord: itemOf(ReadLogPageSchema, 'reads'),
  Memory: MemorySchema,
  RememberResult: RememberResultSchema,
  RememberManyResult: RememberManyResultSchema,
  RecallResult: RecallResultSchema,
  WhyResult: WhyResultSchema,
  Graph: SerializedGraphSchema,
  MemoryNode: res.MemoryNodeOut,
  EntityNode: res.EntityNodeOut,
  RelationEdge: res.RelationEdgeOut,
  Neighbours: res.NeighboursOut,
  EntityGraph: res.EntityGraphOut,
  WhoAmI: WhoAmISchema,
  Receipt: DeletionReceiptSchema,
  ForgottenCheck: ForgottenCheckSchema,
  CorrectionResult: CorrectionResultSchema,
  MemoryPage: MemoryPageSchema,
  SessionAppendResult: SessionAppendResultSchema,
  SessionMessages: SessionMessagesSchema,
  SessionContext: SessionContextSchema,
  SessionForgetting: SessionForgettingSchema,
  ImportReport: ImportReportSchema,
  KeyValue: res.KvOut,
  SessionList: res.SessionsOut,
  ReadLog: ReadLogPageSchema,
  SessionDeletion: SessionDeletionSchema,
};
for (const [id, schema] of Object.entries(NAMES)) NAMED_RESULTS.add(schema, { id });

// The exposed use-cases' answers, declared once in core beside the use-case,
// named as the use-case (ownerStats: OwnerStats).
for (const [name, u] of Object.entries(USE_CASES) as [string, Partial<ExposedUseCase>][])
  if (u.expose) NAMED_RESULTS.add(u.expose.result, { id: name[0]!.toUpperCase() + name.slice(1) });
