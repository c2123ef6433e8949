// whoami / listOwners: what the caller's own credential covers, for a UI
// deciding what to show. Neither names an owner; both are scoped by the
// caller (`callerScoped` in the registry): whoami reads nothing stored, and
// listOwners narrows itself to the caller's owners, so a key scoped to some
// owners learns of no other (invariant 1).
import { z } from 'zod';
import { ROLES, identifierSchema } from '../domain/record.ts';
import type { Caller, EngineDeps } from '../services/deps.ts';
import { optionalArg, type ParsedArgs } from './define.ts';

export const WhoAmISchema = z.object({
  /** `key:<id>` for an API key, `jwt:<sub>` for a JWT (`jwt:sha256:<hex>` for a long sub). */
  principal: z
    .string()
    .describe(
      '`key:<id>` for an API key, `jwt:<sub>` for a JWT (`jwt:sha256:<hex>` for a sub over 200 characters)',
    ),
  role: z.enum(ROLES),
  /** The owners the credential may act on: `'all'` for every owner, as keys and JWT claims say it. */
  owners: z
    .union([z.literal('all'), z.array(z.string())])
    .describe('The owners the credential may act on; `all` for every owner (as keys say it)'),
  /** When the credential stops authenticating; null: never (a key without expiry). */
  expiresAt: z
    .string()
    .nullable()
    .describe('When the credential stops authenticating; null: never'),
});
export type WhoAmI = z.output<typeof WhoAmISchema>;

export async function whoami(_deps: EngineDeps, _input: unknown, caller: Caller): Promise<WhoAmI> {
  return {
    principal: caller.principal,
    role: caller.role,
    owners: caller.owners === 'all' ? 'all' : [...caller.owners],
    expiresAt: caller.expiresAt ?? null,
  };
}

/** The most owners one page holds. */
export const MAX_OWNER_PAGE = 1000;

export const ListOwnersArgs = [
  optionalArg(
    'page',
    z
      .strictObject({
        /** The `next` of the previous page; absent for the first. */
        after: identifierSchema('after').optional(),
        limit: z.number().int().min(1).max(MAX_OWNER_PAGE).default(100),
      })
      .prefault({}),
  ),
] as const;

export const OwnerSummarySchema = z.object({
  ownerId: z.string(),
  /** Memories stored for it (superseded versions and those not yet swept included). */
  memories: z.number().int().describe('Memories stored for it'),
});
export type OwnerSummary = z.output<typeof OwnerSummarySchema>;

export const OwnerPageSchema = z.object({
  owners: z.array(OwnerSummarySchema),
  /** Pass as `after` for the next page; null on the last. */
  next: z.string().nullable().describe('Pass as `after` for the next page; null on the last'),
});
export type OwnerPage = z.output<typeof OwnerPageSchema>;

/**
 * The owners that hold memories, in id order, page by page: every one for
 * an all-owners caller, and for a caller scoped to some owners those of
 * its own that hold any (it never learns whether any other exists).
 */
export async function listOwners(
  deps: EngineDeps,
  { page }: ParsedArgs<typeof ListOwnersArgs>,
  caller: Caller,
): Promise<OwnerPage> {
  const counted: OwnerSummary[] = [];
  let more = false;
  if (caller.owners === 'all') {
    const ids = await deps.store.listOwners({
      ...(page.after !== undefined && { after: page.after }),
      limit: page.limit + 1,
    });
    more = ids.length > page.limit;
    const memories = await Promise.all(
      ids.slice(0, page.limit).map((o) => deps.store.countMemories(o)),
    );
    ids.slice(0, page.limit).forEach((ownerId, i) => {
      counted.push({ ownerId, memories: memories[i]! });
    });
  } else {
    // The caller's own owners, in the order a cursor walks (code units,
    // the same comparison for the sort and for `after`).
    const mine = [...new Set(caller.owners)]
      .filter((o) => page.after === undefined || o > page.after)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const ownerId of mine) {
      const memories = await deps.store.countMemories(ownerId);
      if (memories === 0) continue;
      if (counted.length === page.limit) {
        more = true;
        break;
      }
      counted.push({ ownerId, memories });
    }
  }
  return {
    owners: counted,
    next: more && counted.length > 0 ? counted[counted.length - 1]!.ownerId : null,
  };
}
