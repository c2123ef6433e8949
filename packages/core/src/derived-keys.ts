// Derived memories are extra keys to their evidence, never a veil over it
// (DESIGN, retrieval step 4). A derived hit (a reflected fact, a rule, a
// compaction summary) lends its score to the sources the query matches
// best, which then come back saying through which memory they were reached
// (`via`); a compaction summary hides a member only when its text carries
// everything the member says; and a derived memory with more sources than
// the config allows is a key only, so a single hit cannot fill the results
// with the turns it stands for.
import type { RecallConfig } from './recall-config.ts';
import type { Memory } from './record.ts';
import type { FusedEntry } from './rank.ts';
import { isCompactionSummary } from './jobs/compact.ts';
import { carriesAllOf } from './jobs/duplicates.ts';

/**
 * Members of a live compaction summary whose every content word its text
 * carries (true duplicates) are not recalled: the summary stands in for
 * them, at the best rank any of them had. Returns the hidden members and
 * the summaries standing in. Mutates `fused` and `live`.
 */
export function standInForDuplicates(
  fused: Map<string, FusedEntry>,
  live: Map<string, Memory>,
): { hidden: Set<string>; standingIn: Set<string> } {
  const hidden = new Set<string>();
  const standingIn = new Set<string>();
  const summaries = [...live.values()].filter(isCompactionSummary);
  for (const summary of summaries) {
    for (const memberId of summary.derivedFrom) {
      const member = live.get(memberId);
      if (!member || !carriesAllOf(summary.text, member.text)) continue;
      const mine = fused.get(memberId);
      const current = fused.get(summary.id);
      if (mine && (!current || current.fused < mine.fused))
        fused.set(summary.id, { fused: mine.fused, ranks: { ...mine.ranks }, raw: { ...mine.raw } });
      live.delete(memberId);
      hidden.add(memberId);
      standingIn.add(summary.id);
    }
  }
  return { hidden, standingIn };
}

/**
 * Each live derived candidate lends `config.sourceLend` × its fused score to
 * its `maxSourcesPerDerived` sources the query matched best (their own fused
 * score; the order they are named in breaks ties), where that is more than
 * they have. Sources must be in `live` to be lent to. Returns, per source
 * raised, the derived memories that raised it, best first. Mutates `fused`.
 */
export function lendScoreToSources(
  fused: Map<string, FusedEntry>,
  live: ReadonlyMap<string, Memory>,
  config: Pick<RecallConfig, 'sourceLend' | 'maxSourcesPerDerived'>,
): Map<string, string[]> {
  const via = new Map<string, string[]>();
  if (config.sourceLend <= 0) return via;
  const derived = [...fused.entries()]
    .filter(([id]) => (live.get(id)?.derivedFrom.length ?? 0) > 0)
    .sort((a, b) => b[1].fused - a[1].fused || a[0].localeCompare(b[0]));
  // What each source had before any lending: a derived memory picks the
  // sources the query itself matched, not ones another derived memory raised.
  const own = new Map([...fused].map(([id, f]) => [id, f.fused]));
  for (const [id, entry] of derived) {
    const sources = live.get(id)!.derivedFrom.filter((s) => live.has(s));
    const order = new Map(sources.map((s, i) => [s, i]));
    const best = [...sources]
      .sort((a, b) => (own.get(b) ?? 0) - (own.get(a) ?? 0) || order.get(a)! - order.get(b)!)
      .slice(0, config.maxSourcesPerDerived);
    const lent = entry.fused * config.sourceLend;
    for (const s of best) {
      const target = fused.get(s) ?? { ranks: {}, raw: {}, fused: 0 };
      if (lent > target.fused) {
        target.fused = lent;
        target.raw.via = entry.fused;
        fused.set(s, target);
        via.set(s, [...(via.get(s) ?? []), id]);
      } else if (via.has(s)) {
        via.get(s)!.push(id);
      }
    }
  }
  return via;
}

/**
 * The derived memories that are keys only: more sources than a result may
 * stand for, and not standing in for true duplicates.
 */
export function keysOnly(
  live: ReadonlyMap<string, Memory>,
  standingIn: ReadonlySet<string>,
  config: Pick<RecallConfig, 'maxSourcesPerDerived'>,
): string[] {
  return [...live.values()]
    .filter((m) => m.derivedFrom.length > config.maxSourcesPerDerived && !standingIn.has(m.id))
    .map((m) => m.id);
}
