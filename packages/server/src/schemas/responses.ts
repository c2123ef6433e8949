// Response schemas of the HTTP API: the shapes the engine returns, written
// as zod so that fastify-type-provider-zod serialises them and
// @fastify/swagger documents them, one module per family in responses/.
// Core declares these results as TypeScript interfaces; the `Same<...>`
// checks below make tsc fail if a schema drifts from core's type (the
// serializer would otherwise drop fields).
import type { z } from 'zod';
import type {
  AuditEvent,
  AuditVerification,
  DeletionPreview,
  DeletionReceipt,
  ErrorCode,
  ExpiryRun,
  ExportPage,
  ForgottenCheck,
  Kpis,
  Memory,
  OwnerPage,
  QueueMetrics,
  ReadLogPage,
  RecallResult,
  RememberManyResult,
  RememberResult,
  SerializedGraph,
  SessionAppendResult,
  SessionContext,
  SessionDeletion,
  SessionForgetting,
  CorrectionResult,
  SessionMessages,
  WhyResult,
  WhoAmI,
} from '@keepgraph/core';
import type { MemoryOut, RecallOut, RememberManyOut, RememberOut } from './responses/memory.ts';
import type { OwnerPageOut, SerializedGraphOut, WhoAmIOut, WhyOut } from './responses/graph.ts';
import type {
  CorrectionOut,
  DeletionPreviewOut,
  ForgottenOut,
  ReceiptOut,
} from './responses/deletion.ts';
import type { ExportPageOut } from './responses/pages.ts';
import type {
  SessionAppendOut,
  SessionContextOut,
  SessionDeletionOut,
  SessionForgettingOut,
  SessionMessagesOut,
} from './responses/sessions.ts';
import type {
  AuditEventOut,
  AuditVerifyOut,
  ExpiryRunOut,
  KpisOut,
  QueueMetricsOut,
  ReadLogOut,
} from './responses/operate.ts';
import type { ErrorOut } from './responses/errors.ts';
export * from './responses/memory.ts';
export * from './responses/graph.ts';
export * from './responses/deletion.ts';
export * from './responses/pages.ts';
export * from './responses/sessions.ts';
export * from './responses/operate.ts';
export * from './responses/errors.ts';
export * from './responses/keys.ts';

/** True when A and B are mutually assignable. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;

export type ResponseSchemaChecks = [
  Check<Same<z.output<typeof MemoryOut>, Memory>>,
  Check<Same<z.output<typeof RememberOut>, RememberResult>>,
  Check<Same<z.output<typeof RememberManyOut>, RememberManyResult>>,
  Check<Same<z.output<typeof RecallOut>, RecallResult>>,
  Check<Same<z.output<typeof WhyOut>, WhyResult>>,
  Check<Same<z.output<typeof SerializedGraphOut>, SerializedGraph>>,
  Check<Same<z.output<typeof ReceiptOut>, DeletionReceipt>>,
  Check<Same<z.output<typeof DeletionPreviewOut>, DeletionPreview>>,
  Check<Same<z.output<typeof ReadLogOut>, ReadLogPage>>,
  Check<Same<z.output<typeof ForgottenOut>, ForgottenCheck>>,
  Check<Same<z.output<typeof ExportPageOut>, ExportPage>>,
  Check<Same<z.output<typeof SessionAppendOut>, SessionAppendResult>>,
  Check<Same<z.output<typeof SessionContextOut>, SessionContext>>,
  Check<Same<z.output<typeof SessionDeletionOut>, SessionDeletion>>,
  Check<Same<z.output<typeof SessionMessagesOut>, SessionMessages>>,
  Check<Same<z.output<typeof SessionForgettingOut>, SessionForgetting>>,
  Check<Same<z.output<typeof CorrectionOut>, CorrectionResult>>,
  Check<Same<z.output<typeof AuditEventOut>, AuditEvent>>,
  Check<Same<z.output<typeof AuditVerifyOut>, AuditVerification>>,
  Check<Same<z.output<typeof KpisOut>, Kpis>>,
  Check<Same<z.output<typeof ExpiryRunOut>, ExpiryRun>>,
  Check<Same<z.output<typeof QueueMetricsOut>, QueueMetrics>>,
  Check<Same<z.output<typeof ErrorOut>['error']['code'], ErrorCode>>,
  Check<Same<z.output<typeof WhoAmIOut>, WhoAmI>>,
  Check<Same<z.output<typeof OwnerPageOut>, OwnerPage>>,
];
