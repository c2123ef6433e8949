// How a store answers searchEntities for hub entities, decided the same way
// on every store: 'hits' looks every memory about the named entities up and
// sorts them; 'walk' walks the owner's memories newest first until enough
// are hits. Both give the same answer; only the cost differs.

export type EntityPlan = 'hits' | 'walk';

/**
 * 'walk' when the named entities are hubs: looking up h hits costs about h
 * row reads, the walk about limit x owner / h, so the walk wins once h^2
 * passes limit x owner (twice that, as a margin: a walk that misses is the
 * costlier mistake). `hits` counts ABOUT links only, relations being few;
 * `ownerSize` is the owner's memory (or vector) count.
 */
export function entityPlanFor(hits: number, ownerSize: number, limit: number): EntityPlan {
  return hits * hits > 2 * limit * Math.max(ownerSize, hits) ? 'walk' : 'hits';
}
