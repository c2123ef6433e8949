// The owner's and the store's memory counts, which size a vector search
// (search.ts), kept for a moment after a query has read them. A recall asks
// full text while its query is embedded, and that query reads the same
// counts; the vector search that follows takes them from here instead of a
// round trip of its own. The counts only choose how many neighbours the
// index is asked for and whether the exact scan answers instead: a count a
// second old changes neither what a search may return (the index search
// widens until enough live hits survive) nor whom it may return.

/** How long counts read by one query serve the searches after it, in ms. */
export const SIZES_FRESH_MS = 1_000;

/** Owners remembered at most (the least recently noted go first). */
const MAX_OWNERS = 1_024;

export interface StoreSizes {
  owner: number;
  total: number;
}

export class RecentSizes {
  private readonly byOwner = new Map<string, { sizes: StoreSizes; atMs: number }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  note(ownerId: string, sizes: StoreSizes): void {
    this.byOwner.delete(ownerId);
    this.byOwner.set(ownerId, { sizes, atMs: this.now() });
    if (this.byOwner.size > MAX_OWNERS) this.byOwner.delete(this.byOwner.keys().next().value!);
  }

  /**
   * The counts noted for `ownerId` within SIZES_FRESH_MS, or null. Never an
   * owner count of 0: a search takes that to mean "nothing to find", which a
   * write since may have made untrue.
   */
  fresh(ownerId: string): StoreSizes | null {
    const e = this.byOwner.get(ownerId);
    return e && e.sizes.owner > 0 && this.now() - e.atMs <= SIZES_FRESH_MS ? e.sizes : null;
  }
}
