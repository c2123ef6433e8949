// MemoryStore.deleteCascade: in one write transaction, delete the roots and
// every memory derived from them (transitively), with their vector and
// full-text entries, edges, orphaned relation edges, entities, sources and
// sessions, and session-buffer copies; record a rederive job in the outbox
// for each derived memory that keeps surviving sources; audit it; return the
// receipt (invariant 7). The cascade is a few statements in one explicit
// transaction (lock the owner, compute the closure, delete it, record jobs
// and audit); the optional onCascadeStep hook runs between them so a test
// can break the connection mid-way and prove that nothing is half-deleted.
import type { MemoryKind } from '@keepgraph/core';
import type { CascadeRequest, CascadeReceipt, RederiveEntry } from '@keepgraph/core/ports';
import { appendAuditEvents } from './audit-log.ts';
import { recordJobs } from './outbox.ts';
import { cypher } from './queries.ts';
import type { StoreContext } from './store-context.ts';
import { inWrite, int, num, rows } from './transactions.ts';
import type { Tx } from './transactions.ts';

interface ClosureRow {
  id: string;
  contentHash: string;
  isRoot: boolean;
  hasEmbedding: boolean;
  kind: MemoryKind;
  tags: string[] | null;
  /** Sources outside the closure (none for a root). */
  surviving: string[];
}

/** One statement of the cascade, then the test hook. */
async function step<T>(
  ctx: StoreContext,
  tx: Tx,
  name: string,
  params: Record<string, unknown>,
): Promise<T[]> {
  const out = rows<T>(await tx.run(cypher(name), params));
  if (ctx.onCascadeStep) await ctx.onCascadeStep(name);
  return out;
}

/**
 * The owner's session-buffer messages whose text is a deleted memory's text:
 * copies a client appended apart from the write, with no memoryId link
 * (invariant 7 deletes them too). Hashed here, as the memories' content
 * hashes were computed, since the buffer keeps no hash of its own.
 */
async function sameTextMessages(
  ctx: StoreContext,
  tx: Tx,
  ownerId: string,
  closure: ClosureRow[],
): Promise<string[]> {
  const wanted = new Set(closure.map((r) => r.contentHash));
  const messages = rows<{ id: string; text: string }>(
    await tx.run(
      'MATCH (x:SessionMessage {ownerId: $ownerId}) RETURN elementId(x) AS id, x.text AS text',
      { ownerId },
    ),
  );
  return messages.filter((m) => wanted.has(ctx.rules.contentHash(m.text))).map((m) => m.id);
}

/**
 * Delete the closure and everything hanging off it in one statement (a
 * statement per part cost a round trip and a lookup of every id each: about
 * a third of a 1,000-memory cascade, bench/README); returns the receipt's counts.
 */
async function deleteClosure(ctx: StoreContext, tx: Tx, ownerId: string, closure: ClosureRow[]) {
  const copies = await sameTextMessages(ctx, tx, ownerId, closure);
  const [done] = await step<{
    relationEdges: unknown;
    entities: unknown;
    sessionMessages: unknown;
  }>(ctx, tx, 'cascade-delete', {
    ownerId,
    ids: closure.map((r) => r.id),
    copies,
    deleted: int(closure.length),
  });
  return {
    // Every memory has a full-text entry (text and ownerKey are indexed);
    // only those with an embedding have a vector entry.
    embeddingsDeleted: closure.filter((r) => r.hasEmbedding).length,
    fullTextEntriesDeleted: closure.length,
    relationEdgesDeleted: num(done?.relationEdges ?? 0),
    entitiesDeleted: num(done?.entities ?? 0),
    sessionMessagesDeleted: num(done?.sessionMessages ?? 0),
  };
}

/** Run a cascade; throws not_found when none of the roots is this owner's. */
export async function deleteCascade(
  ctx: StoreContext,
  req: CascadeRequest,
): Promise<CascadeReceipt> {
  const rootIds = [...new Set(req.rootIds)];
  return inWrite(ctx, async (tx): Promise<CascadeReceipt> => {
    const ownerId = req.ownerId;
    await step(ctx, tx, 'cascade-lock-owner', { ownerId });
    const closure = await step<ClosureRow>(ctx, tx, 'cascade-closure', {
      ownerId,
      rootIds,
      // A step of a wider cascade: only the cascade's own roots are not
      // re-derived, and its other steps' memories do not survive.
      requestedRoots: req.step?.requestedRoots ?? rootIds,
      outside: req.step?.deletedByCascade ?? [],
    });
    ctx.rules.requireRoots(req, closure.filter((r) => r.isRoot).length);
    const deletedMemoryIds = closure.map((r) => r.id);
    const deletedContentHashes = [...new Set(closure.map((r) => r.contentHash))];
    // A derived memory that keeps surviving sources is rebuilt from them by
    // a job (cascade-closure gives a requested root none).
    const rederive: RederiveEntry[] = closure
      .filter((r) => r.surviving.length > 0)
      .map((r) => ({
        id: r.id,
        kind: r.kind,
        tags: [...(r.tags ?? [])],
        survivingSources: [...new Set(r.surviving)].sort(),
      }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

    const counts = await deleteClosure(ctx, tx, ownerId, closure);
    // What commits beside the deletion (receipt, rederive jobs, audit) is
    // the engine's decision, from what was found and deleted here.
    const { receipt, jobs, audit } = ctx.rules.settleCascade(req, {
      deletedMemoryIds,
      deletedContentHashes,
      ...counts,
      rederive,
    });
    await recordJobs(tx, jobs, req.at);
    await appendAuditEvents(tx, ctx.rules, audit);
    if (ctx.onCascadeStep) await ctx.onCascadeStep('audit');
    return receipt;
  });
}
