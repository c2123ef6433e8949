// Derived memories are extra keys to their evidence, never a veil over it
// (DESIGN, retrieval step 4). A derived hit (a reflected claim, a rule, a
// summary) lends its score to the sources the query matches best, which
// then come back right after it, saying through which memory they were
// reached (`via`). A compaction summary hides a member only when its text
// carries everything the member says. A derived memory with more sources
// than the config allows, or a context summary (its text is only its turns:
// jobs/context-keys.ts), is a key only, never a result itself, so a single
// hit cannot fill the results with the turns it stands for.
import type { RecallConfig } from './recall-config.ts';
import type { Memory } from './record.ts';
import type { FusedEntry, Ranked } from './scoring.ts';
import { isCompactionSummary, isContextSummary, isSentenceKey } from './derived-kinds.ts';
import { carriesAllOf } from './word-overlap.ts';

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
        fused.set(summary.id, {
          fused: mine.fused,
          ranks: { ...mine.ranks },
          raw: { ...mine.raw },
        });
      live.delete(memberId);
      hidden.add(memberId);
      standingIn.add(summary.id);
    }
  }
  return { hidden, standingIn };
}

/**
 * Each derived candidate lends `config.sourceLend` × its final score to its
 * `maxSourcesPerDerived` sources the query matched best (their own score;
 * the order they are named in breaks ties), where that is more than they
 * have, so a derived memory comes just before the evidence it led to.
 * `scored` holds the candidates; `rescore(memory)` scores a source the
 * query did not find (its fused score is 0, its factors its own). Sources
 * must be in `memories` (live) to be lent to. Returns, per source raised,
 * the derived memories that raised it, best first (into `via` when given);
 * raised sources are updated in place or appended to `scored`.
 */
export function lendScoreToSources(
  scored: Ranked[],
  memories: ReadonlyMap<string, Memory>,
  config: Pick<RecallConfig, 'sourceLend' | 'maxSourcesPerDerived'>,
  rescore: (memory: Memory) => Ranked,
  via: Map<string, string[]> = new Map(),
): Map<string, string[]> {
  if (config.sourceLend <= 0) return via;
  const byId = new Map(scored.map((r) => [r.memory.id, r]));
  // What each source had before any lending: a derived memory picks the
  // sources the query itself matched, not ones another derived memory raised.
  const own = new Map(scored.map((r) => [r.memory.id, r.score]));
  const derived = scored
    .filter((r) => r.memory.derivedFrom.length > 0)
    .sort((a, b) => b.score - a.score || a.memory.id.localeCompare(b.memory.id));
  for (const d of derived) {
    const sources = d.memory.derivedFrom.filter((s) => memories.has(s));
    const order = new Map(sources.map((s, i) => [s, i]));
    const best = [...sources]
      .sort((a, b) => (own.get(b) ?? 0) - (own.get(a) ?? 0) || order.get(a)! - order.get(b)!)
      .slice(0, config.maxSourcesPerDerived);
    const lent = d.score * config.sourceLend;
    for (const s of best) {
      let target = byId.get(s);
      if (!target) {
        target = rescore(memories.get(s)!);
        byId.set(s, target);
        scored.push(target);
      }
      if (lent > target.score) {
        target.score = lent;
        target.breakdown = {
          ...target.breakdown,
          final: lent,
          raw: { ...target.breakdown.raw, via: d.score },
        };
        via.set(s, [...(via.get(s) ?? []), d.memory.id]);
      }
    }
  }
  return via;
}

/**
 * The derived memories that are keys only: context summaries, sentence
 * keys (they quote their turn, which is the result), and those
 * with more sources than a result may stand for, unless standing in for
 * true duplicates.
 */
export function keysOnly(
  candidates: Iterable<Memory>,
  standingIn: ReadonlySet<string>,
  config: Pick<RecallConfig, 'maxSourcesPerDerived'>,
): string[] {
  return [...candidates]
    .filter(
      (m) =>
        (m.derivedFrom.length > config.maxSourcesPerDerived ||
          isContextSummary(m) ||
          isSentenceKey(m)) &&
        !standingIn.has(m.id),
    )
    .map((m) => m.id);
}
