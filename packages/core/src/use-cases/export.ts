// Export: an owner's held memories, page by page, for backup and moving an
// owner between installations. It is a read of everything the owner has, so
// each page is audited as one (with the ids it handed out), and only people
// may run it: the owner's user or an operator.
import { z } from 'zod';
import { isHeldAt } from '../domain/liveness.ts';
import { copyMemory, identifierSchema, type Memory } from '../domain/record.ts';
import { logServed, type Caller, type EngineDeps } from '../services/deps.ts';
import { OWNER_ID, arg, optionalArg, type ParsedArgs } from './define.ts';

/** The most memories one export page holds. */
export const MAX_EXPORT_PAGE = 1000;

const ExportPageSchema = z.strictObject({
  /** The `next` of the previous page; absent for the first. */
  after: identifierSchema('after').optional(),
  limit: z.number().int().min(1).max(MAX_EXPORT_PAGE).default(500),
});
export type ExportPageOptions = z.input<typeof ExportPageSchema>;

export interface ExportPage {
  ownerId: string;
  /**
   * The page's held memories, oldest first: not expired, not superseded,
   * not ended (one valid from a later time is held, and exported).
   */
  memories: Memory[];
  /** Pass as `after` for the next page; null after the last. */
  next: string | null;
}

export const ExportPageArgs = [
  arg('ownerId', OWNER_ID),
  optionalArg('options', ExportPageSchema.prefault({})),
] as const;

export async function exportPage(
  deps: EngineDeps,
  { ownerId, options: opts }: ParsedArgs<typeof ExportPageArgs>,
  caller: Caller,
): Promise<ExportPage> {
  const at = deps.clock.now().toISOString();
  const ids = await deps.store.listIds(ownerId, {
    ...(opts.after !== undefined ? { after: opts.after } : {}),
    limit: opts.limit,
  });
  const rows = ids.length ? await deps.store.getByIds(ownerId, ids) : [];
  const memories = rows
    .filter((m) => isHeldAt(m, at))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  await logServed(
    deps,
    caller,
    ownerId,
    memories.map((m) => m.id),
    { details: { export: true } },
  );
  return {
    ownerId,
    memories: memories.map((m) => copyMemory(m)),
    next: ids.length < opts.limit ? null : ids[ids.length - 1]!,
  };
}
