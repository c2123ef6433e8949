// Deletion use-cases: forget (cascade + receipt), forget an owner, revoke a
// source, expire what is due, and prove it is all gone. Forget and
// revoke-source have a dry run that lists the cascade's closure. The
// cascade itself, its dry run and eviction over the cap are services
// (services/cascade.ts), shared with the jobs and restore.
import { KeepGraphError } from '../domain/errors.ts';
import { DELETION_AUDIT_TYPE } from '../ports/cascade-audit.ts';
import { DeletionReceiptSchema, TraceSchema, type DeletionReceipt } from '../ports/memory-store.ts';
import { z } from 'zod';
import { IdListSchema, auditEvent, type Caller, type EngineDeps } from '../services/deps.ts';
import { OWNER_ID, arg, optionalArg, type ParsedArgs } from './define.ts';
import {
  cascade,
  mergeReceipts,
  previewCascade,
  type DeletionPreview,
} from '../services/cascade.ts';

/** `dryRun: true` lists what would go and deletes nothing. Strict: a misspelt dryRun must not delete. */
const DryRunSchema = z
  .strictObject({ dryRun: z.boolean().optional().describe('List what would go; delete nothing') })
  .prefault({});

export const ForgetArgs = [
  arg('ownerId', OWNER_ID),
  arg('ids', IdListSchema.min(1, 'name at least one memory id to forget')),
  optionalArg('options', DryRunSchema),
] as const;

export function forget(
  deps: EngineDeps,
  { ownerId, ids, options }: ParsedArgs<typeof ForgetArgs>,
  caller: Caller,
): Promise<DeletionReceipt | DeletionPreview> {
  const roots = [...new Set(ids)];
  if (options.dryRun) return previewCascade(deps, caller, ownerId, roots, 'forget');
  return cascade(deps, caller, ownerId, roots, 'forget');
}

export const OwnerArgs = [arg('ownerId', OWNER_ID)] as const;

/** Delete everything an owner has. Operators and the user themself may do it. */
export async function forgetOwner(
  deps: EngineDeps,
  { ownerId }: ParsedArgs<typeof OwnerArgs>,
  caller: Caller,
): Promise<DeletionReceipt> {
  const ids = await deps.store.listIds(ownerId);
  const receipts =
    ids.length > 0 ? [await cascade(deps, caller, ownerId, ids, 'forget_owner')] : [];
  // The session buffer holds the owner's words too, linked to a memory or
  // not, and the read log and pending jobs name the owner: all go with it,
  // and an owner with only sessions can be forgotten. (After the cascade: a
  // crash in between leaves what a second call deletes.)
  const residue = await deps.store.deleteOwnerResidue(ownerId);
  if (ids.length === 0 && residue.sessionMessages === 0)
    throw new KeepGraphError('not_found', `owner ${ownerId} has no memories and no sessions`);
  const at = deps.clock.now().toISOString();
  if (
    residue.sessionMessages +
      residue.readLogRows +
      residue.outboxJobs +
      residue.idempotencyRecords >
    0
  )
    await deps.store.appendAudit([
      auditEvent(caller, DELETION_AUDIT_TYPE.forget_owner, at, ownerId, {
        reason: 'forget_owner',
        details: {
          sessionMessagesDeleted: residue.sessionMessages,
          readLogRowsDeleted: residue.readLogRows,
          outboxJobsDeleted: residue.outboxJobs,
          idempotencyRecordsDeleted: residue.idempotencyRecords,
        },
      }),
    ]);
  const receipt = mergeReceipts(ownerId, 'forget_owner', receipts[0]?.at ?? at, receipts);
  receipt.sessionMessagesDeleted += residue.sessionMessages;
  return receipt;
}

const RevokeSourceSchema = z
  .strictObject({
    uri: z.string().trim().min(1).max(2048).optional(),
    tool: z.string().trim().min(1).max(512).optional(),
  })
  .refine((s) => s.uri !== undefined || s.tool !== undefined, {
    message: 'name a source uri or a tool to revoke',
  });

const VerifySchema = z.object({
  ids: IdListSchema,
  contentHashes: z
    .array(z.string().regex(/^[0-9a-f]{64}$/, 'content hashes are sha-256 hex'))
    .max(10_000)
    .optional(),
});

/** Delete every memory whose origin (own or inherited) names this URL, document or tool. */
export const RevokeSourceArgs = [
  arg('ownerId', OWNER_ID),
  arg('source', RevokeSourceSchema),
  optionalArg('options', DryRunSchema),
] as const;

export async function revokeSource(
  deps: EngineDeps,
  { ownerId, source, options }: ParsedArgs<typeof RevokeSourceArgs>,
  caller: Caller,
): Promise<DeletionReceipt | DeletionPreview> {
  const ids = await deps.store.findBySource(ownerId, source);
  if (options.dryRun) return previewCascade(deps, caller, ownerId, ids, 'revoke_source');
  if (ids.length === 0) {
    const at = deps.clock.now().toISOString();
    return mergeReceipts(ownerId, 'revoke_source', at, []);
  }
  return cascade(deps, caller, ownerId, ids, 'revoke_source', { source });
}

export const ForgottenCheckSchema = z.object({
  /** Nothing of the ids or hashes is left in this owner's stores, indexes and caches. */
  forgotten: z.boolean(),
  traces: z.array(TraceSchema),
  /**
   * The owner whose data was searched: only theirs. Another owner's id reads
   * as forgotten here, since this call never looks at, or tells of, other
   * owners' data.
   */
  scope: z
    .object({ ownerId: z.string() })
    .describe("Only this owner's data was searched: another owner's id reads as forgotten"),
});
export type ForgottenCheck = z.output<typeof ForgottenCheckSchema>;

/** Look for the ids and content hashes everywhere the store keeps anything. */
export const VerifyArgs = [arg('ownerId', OWNER_ID), arg('what', VerifySchema)] as const;

export async function verifyForgotten(
  deps: EngineDeps,
  { ownerId, what }: ParsedArgs<typeof VerifyArgs>,
): Promise<ForgottenCheck> {
  if (what.ids.length === 0 && (what.contentHashes?.length ?? 0) === 0) {
    throw new KeepGraphError('invalid_input', 'name ids or content hashes to verify');
  }
  const traces = await deps.store.findTraces(ownerId, what.ids, what.contentHashes ?? []);
  return { forgotten: traces.length === 0, traces, scope: { ownerId } };
}

export const ExpiryRunSchema = z.object({
  purged: z.number().int(),
  owners: z.number().int(),
  /** Milliseconds between scheduled expiry and actual purge, per purged root. */
  lagsMs: z.array(z.number()),
  receipts: z.array(DeletionReceiptSchema),
});
export type ExpiryRun = z.output<typeof ExpiryRunSchema>;

/**
 * Purge memories whose expiry has passed, with the cascade. Records the
 * scheduled and actual purge times in the audit log so the on-schedule share
 * is measured. Retrieval already excludes them at query time.
 */
export const ExpireArgs = [
  optionalArg(
    'options',
    z.strictObject({ limit: z.number().int().min(1).max(100_000).optional() }).prefault({}),
  ),
] as const;

export async function expireDue(
  deps: EngineDeps,
  { options: opts }: ParsedArgs<typeof ExpireArgs>,
  caller: Caller,
): Promise<ExpiryRun> {
  const now = deps.clock.now();
  const due = await deps.store.dueForExpiry(now.toISOString(), opts.limit ?? 1000);
  const byOwner = new Map<string, { id: string; expiresAt: string }[]>();
  for (const d of due) byOwner.set(d.ownerId, [...(byOwner.get(d.ownerId) ?? []), d]);
  const receipts: DeletionReceipt[] = [];
  const lagsMs: number[] = [];
  for (const [ownerId, items] of byOwner) {
    const scheduled = Object.fromEntries(items.map((i) => [i.id, i.expiresAt]));
    try {
      receipts.push(
        await cascade(
          deps,
          caller,
          ownerId,
          items.map((i) => i.id),
          'expire',
          {
            scheduled,
            purgedAt: now.toISOString(),
          },
        ),
      );
      for (const i of items) lagsMs.push(now.getTime() - new Date(i.expiresAt).getTime());
    } catch (e) {
      // Another sweeper or a cascade from a source got there first.
      if (!(e instanceof KeepGraphError && e.code === 'not_found')) throw e;
    }
  }
  return { purged: lagsMs.length, owners: byOwner.size, lagsMs, receipts };
}
