// Response schemas of the HTTP API: operating: the audit log, KPIs, the read log, expiry runs, queues, health.
import { z } from 'zod';
import { AUDIT_TYPES, JOB_NAMES } from '@keepgraph/core';
import { ReceiptOut } from './deletion.ts';

const str = z.string();
const json = z.record(z.string(), z.unknown());

export const AuditEventOut = z.object({
  seq: z.number().int(),
  type: z.enum(AUDIT_TYPES),
  at: str,
  ownerId: str.nullable(),
  actor: str,
  role: str,
  memoryIds: z.array(str),
  contentHashes: z.array(str),
  reason: str.nullable(),
  details: json,
  prevHash: str,
  hash: str,
});

export const AuditVerifyOut = z.object({
  ok: z.boolean(),
  checked: z.number().int(),
  brokenAt: z.number().int().optional(),
  problem: z.enum(['hash_mismatch', 'broken_link', 'gap']).optional(),
});

const nullableMs = z.number().nullable();

export const KpisOut = z.object({
  owners: z.number(),
  memories: z.number(),
  attributedShare: z.number(),
  medianAgeMs: nullableMs.describe(
    'Median age (now minus createdAt) of the live memories; null when there are none',
  ),
  byKind: z.record(z.string(), z.number()),
  byAuthority: z.record(z.string(), z.number()),
  refusals: z.record(z.string(), z.number()),
  writes: z.number(),
  deletions: z.number(),
  reads: z.number(),
  expiry: z.object({
    purged: z.number(),
    onScheduleShare: z.number().nullable(),
    toleranceMs: z.number(),
    lagP50Ms: z.number().nullable(),
    lagMaxMs: z.number().nullable(),
  }),
  deletionPropagation: z
    .object({ count: z.number(), p50Ms: nullableMs, maxMs: nullableMs })
    .describe(
      'From a deletion request reaching the engine to its cascade committing, over the timed cascades',
    ),
  series: z
    .array(
      z.object({
        day: str.describe('YYYY-MM-DD, UTC'),
        writes: z.number(),
        refusals: z.number(),
        deletions: z.number(),
        reads: z.number(),
        expired: z.number().describe('Memories purged by expiry'),
        onScheduleShare: z.number().nullable(),
        deletionP50Ms: nullableMs,
      }),
    )
    .describe('One row per UTC day with audit events, oldest first, over the last 90 days'),
  auditEvents: z.number(),
});

export const ReadLogOut = z.object({
  reads: z
    .array(
      z.object({
        requestId: str,
        principal: str.describe('Who read (from credentials)'),
        sessionId: str
          .nullable()
          .describe("The keyed hash of the reader's session id, never the id; null without one"),
        memoryIds: z.array(str).describe('The memories the read served'),
        at: str,
      }),
    )
    .describe('Newest first'),
});

export const ExpiryRunOut = z.object({
  purged: z.number().int(),
  owners: z.number().int(),
  lagsMs: z.array(z.number()),
  receipts: z.array(ReceiptOut),
});

const count = z.number().int().nonnegative();

export const QueueMetricsOut = z.object({
  name: z.enum(JOB_NAMES),
  waiting: count,
  active: count,
  delayed: count,
  failed: count,
  completed: count,
  durationMs: z
    .object({ p50: z.number().nullable(), p95: z.number().nullable(), samples: count })
    .describe('Processing time of recently completed jobs (null when none yet)'),
});

export const QueuesOut = z.object({
  configured: z
    .boolean()
    .describe('False when this server was started without a job runner to report on'),
  queues: z.array(QueueMetricsOut),
});

export const HealthOut = z.object({ ok: z.literal(true), store: str, model: str });
