// Export: an owner's held memories, page by page, for backup and moving an
// owner between installations. It is a read of everything the owner has, so
// each page is audited as one (with the ids it handed out), and only people
// may run it: the owner's user or an operator.
import { z } from 'zod';
import { isHeldAt } from '../domain/liveness.ts';
import { MemorySchema, identifierSchema } from '../domain/record.ts';
import { servePage, type Caller, type EngineDeps } from '../services/deps.ts';
import { OWNER_ID, arg, optionalArg, type ParsedArgs } from './define.ts';

/** The most memories one export page holds. */
export const MAX_EXPORT_PAGE = 1000;

const ExportPageOptionsSchema = z.strictObject({
  /** The `next` of the previous page; absent for the first. */
  after: identifierSchema('after').optional(),
  limit: z.number().int().min(1).max(MAX_EXPORT_PAGE).default(500),
});
export type ExportPageOptions = z.input<typeof ExportPageOptionsSchema>;

export const ExportPageSchema = z.object({
  ownerId: z.string(),
  /**
   * The page's held memories, oldest first: not expired, not superseded,
   * not ended (one valid from a later time is held, and exported).
   */
  memories: z.array(MemorySchema).describe('Held memories, oldest first'),
  /** Pass as `after` for the next page; null after the last. */
  next: z.string().nullable().describe('Pass as `after` for the next page; null after the last'),
});
export type ExportPage = z.output<typeof ExportPageSchema>;

export const ExportPageArgs = [
  arg('ownerId', OWNER_ID),
  optionalArg('options', ExportPageOptionsSchema.prefault({})),
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
  return servePage(
    deps,
    caller,
    ownerId,
    memories,
    { export: true },
    ids.length < opts.limit ? null : ids[ids.length - 1]!,
  );
}
