// The answers the API documents by name: each a component of the OpenAPI
// document (`#/components/schemas/Memory`, …) that routes refer to, so a
// client generator names its models as these ids say. The Python client's
// models are generated from them (clients/python/codegen, `pnpm generate`).
import { z } from 'zod';
import { USE_CASES, unwrapSchema, type ExposedUseCase } from '@keepgraph/core';
import * as res from './responses.ts';

export const NAMED_RESULTS = z.registry<{ id: string }>();

/** A field's schema under its optional, nullable or default wrappers. */
const fieldOf = (o: z.ZodObject, field: string): z.ZodType =>
  unwrapSchema(o.shape[field] as z.ZodType);
/** The element schema of an array field. */
const itemOf = (o: z.ZodObject, field: string): z.ZodType =>
  (fieldOf(o, field) as z.ZodArray<z.ZodType>).element;

const NAMES: Record<string, z.ZodType> = {
  Tool: fieldOf(res.OriginOut, 'tool'),
  Source: fieldOf(res.OriginOut, 'source'),
  Origin: res.OriginOut,
  Failure: itemOf(res.RememberManyOut, 'failed'),
  RecallHit: itemOf(res.RecallOut, 'results'),
  Trace: itemOf(res.ForgottenOut, 'traces'),
  SessionWriter: unwrapSchema(res.SessionWriterOut),
  SessionMessage: itemOf(res.SessionMessagesOut, 'messages'),
  SessionSummary: itemOf(res.SessionsOut, 'sessions'),
  ReadRecord: itemOf(res.ReadLogOut, 'reads'),
  Memory: res.MemoryOut,
  RememberResult: res.RememberOut,
  RememberManyResult: res.RememberManyOut,
  RecallResult: res.RecallOut,
  WhyResult: res.WhyOut,
  Graph: res.SerializedGraphOut,
  MemoryNode: res.MemoryNodeOut,
  EntityNode: res.EntityNodeOut,
  RelationEdge: res.RelationEdgeOut,
  Neighbours: res.NeighboursOut,
  EntityGraph: res.EntityGraphOut,
  WhoAmI: res.WhoAmIOut,
  Receipt: res.ReceiptOut,
  ForgottenCheck: res.ForgottenOut,
  CorrectionResult: res.CorrectionOut,
  MemoryPage: res.MemoryPageOut,
  SessionAppendResult: res.SessionAppendOut,
  SessionMessages: res.SessionMessagesOut,
  SessionContext: res.SessionContextOut,
  SessionForgetting: res.SessionForgettingOut,
  ImportReport: res.ImportOut,
  KeyValue: res.KvOut,
  SessionList: res.SessionsOut,
  ReadLog: res.ReadLogOut,
  SessionDeletion: res.SessionDeletionOut,
};
for (const [id, schema] of Object.entries(NAMES)) NAMED_RESULTS.add(schema, { id });

// The exposed use-cases' answers, declared once in core beside the use-case,
// named as the use-case (ownerStats: OwnerStats).
for (const [name, u] of Object.entries(USE_CASES) as [string, Partial<ExposedUseCase>][])
  if (u.expose) NAMED_RESULTS.add(u.expose.result, { id: name[0]!.toUpperCase() + name.slice(1) });
