// Reflection: an owner's unreflected episodes, grouped by similarity within
// passages of consecutive turns (each group also written as a context
// summary, one more key to its turns: context-keys.ts), read
// by the Extractor into claims, written as agent_inferred memories (or
// third_party ones, when read from third-party content: an inference
// vouches for no more than its episodes) that name every supporting
// episode (DERIVED_FROM), carry the union of their origins,
// expire no later than the earliest, and assert entity relations with their
// reason. The episodes are marked reflected in the same transaction, so a
// run that dies before it commits is simply run again.
import {
  AUTHORITY_RANK,
  type Authority,
  type Memory,
  type RelationInput,
} from '../domain/record.ts';
import { isLiveAt } from '../domain/liveness.ts';
import { extractionAuthority, type ExtractedClaim, type Extractor } from '../ports/extractor.ts';
import { auditEvent, type EngineDeps } from '../services/deps.ts';
import { derivedAuthority } from '../services/write.ts';
import { groupBySimilarity } from './group-episodes.ts';
import { contextSummaryOf, passagesOf } from './context-keys.ts';
import { sentenceKeysOf } from './sentence-keys.ts';
import { vectorsInContext } from '../services/turn-context.ts';
import { claimKey } from './statement-extractor.ts';
import {
  REFLECTION_CALLER,
  derivedInput,
  vectorsOf,
  writeDerived,
  type DerivedWrite,
} from './derived-writes.ts';

/** Kinds an extractor may produce. */
const CLAIM_KINDS = new Set(['fact', 'preference', 'constraint', 'goal', 'rule', 'profile']);

/** Raised by an extractor (or by reflection's own checks) when a reply must be refused. */
export interface ExtractionRejection {
  reason: string;
  retryable: boolean;
}

/** Recognise an extractor's rejection without depending on its package. */
export function asRejection(e: unknown): ExtractionRejection | null {
  if (typeof e !== 'object' || e === null) return null;
  const r = e as { reason?: unknown; retryable?: unknown; name?: unknown };
  if (typeof r.reason === 'string' && typeof r.retryable === 'boolean')
    return { reason: r.reason, retryable: r.retryable };
  return null;
}

class ClaimRejected extends Error {
  readonly retryable = false;
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super(`extractor reply rejected (${reason}): ${detail}`);
  }
}

/** Every claim must stay inside the episodes it was given (and so inside their owner). */
export function checkClaims(
  claims: readonly ExtractedClaim[],
  episodeIds: ReadonlySet<string>,
): void {
  for (const c of claims) {
    if (!CLAIM_KINDS.has(c.kind)) throw new ClaimRejected('off_schema', `kind ${String(c.kind)}`);
    if (!c.sourceIds.length) throw new ClaimRejected('off_schema', 'a claim names no source');
    const foreign = c.sourceIds.filter((id) => !episodeIds.has(id));
    if (foreign.length)
      throw new ClaimRejected('foreign_source', `${foreign.length} unknown source id(s)`);
    if (!(c.confidence >= 0 && c.confidence <= 1))
      throw new ClaimRejected('off_schema', 'confidence outside 0..1');
  }
}

/** The key under which a claim and its contradiction meet. */
export function keyOfClaim(c: ExtractedClaim): string {
  const r = c.relations[0];
  if (r) return claimKey(r.type, r.subject.name, r.object.name);
  return `${c.kind}:${c.text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()}`;
}

function sameClaim(a: { relations: RelationInput[]; text: string }, b: ExtractedClaim): boolean {
  const ra = a.relations[0];
  const rb = b.relations[0];
  if (ra && rb) return ra.type === rb.type;
  return a.text.trim().toLowerCase() === b.text.trim().toLowerCase();
}

/** The authority a claim is written with: what reflection infers vouches for no more than its episodes. */
function authorityOf(c: ExtractedClaim, episodes: ReadonlyMap<string, Memory>): Authority {
  return derivedAuthority(
    REFLECTION_CALLER,
    'agent_inferred',
    c.sourceIds.flatMap((s) => episodes.get(s) ?? []),
  );
}

/**
 * A claim as many times as its episodes vouch differently: what the owner
 * said and what a third-party page said are separate evidence, so a page
 * that repeats the owner's claim neither lowers it nor rides on it.
 */
function splitByAuthority(
  c: ExtractedClaim,
  episodes: ReadonlyMap<string, Memory>,
): ExtractedClaim[] {
  const parts = new Map<Authority, string[]>();
  for (const s of c.sourceIds) {
    const a = authorityOf({ ...c, sourceIds: [s] }, episodes);
    parts.set(a, [...(parts.get(a) ?? []), s]);
  }
  if (parts.size <= 1) return [c];
  return [...parts.values()].map((sourceIds) => ({ ...c, sourceIds }));
}

/**
 * A claim and its contradiction read in the same run (same key, another
 * relation): the better vouched statement wins (a page never outvotes the
 * owner), then the more recent one, as it would across runs.
 */
function newestPerKey(
  claims: ExtractedClaim[],
  episodes: ReadonlyMap<string, Memory>,
): ExtractedClaim[] {
  const latest = (c: ExtractedClaim) =>
    c.sourceIds
      .map((s) => episodes.get(s)?.createdAt ?? '')
      .sort()
      .at(-1) ?? '';
  const rank = (c: ExtractedClaim) => AUTHORITY_RANK[authorityOf(c, episodes)];
  const byKey = new Map<string, ExtractedClaim>();
  for (const c of claims) {
    const prev = byKey.get(keyOfClaim(c));
    if (!prev || rank(c) > rank(prev) || (rank(c) === rank(prev) && latest(c) > latest(prev)))
      byKey.set(keyOfClaim(c), c);
  }
  return [...byKey.values()];
}

/** Claims from several groups: one per key, relation and authority, with all their sources. */
function mergeClaims(
  claims: readonly ExtractedClaim[],
  episodes: ReadonlyMap<string, Memory>,
): ExtractedClaim[] {
  const out = new Map<string, ExtractedClaim>();
  for (const c of claims.flatMap((x) => splitByAuthority(x, episodes))) {
    const id = `${keyOfClaim(c)}|${c.relations[0]?.type ?? ''}|${authorityOf(c, episodes)}`;
    const prev = out.get(id);
    if (!prev) out.set(id, { ...c, sourceIds: [...c.sourceIds], relations: [...c.relations] });
    else {
      prev.sourceIds = [...new Set([...prev.sourceIds, ...c.sourceIds])];
      prev.confidence = Math.max(prev.confidence, c.confidence);
    }
  }
  return [...out.values()];
}

export interface ReflectionRun {
  episodes: number;
  groups: number;
  claims: number;
  written: string[];
  /** Claims already held (same claim, no new source): nothing written. */
  confirmed: string[];
  superseded: string[];
  conflicts: string[];
  /** Groups whose extractor reply was refused (audited, nothing written for them). */
  rejected: { episodes: string[]; reason: string }[];
}

/**
 * Reflect `episodes` (an owner's unreflected ones by default). With
 * `markReflected` false (re-derivation), the episodes' marks are left alone.
 */
export async function reflect(
  deps: EngineDeps,
  extractor: Extractor,
  ownerId: string,
  opts: { episodes?: Memory[]; markReflected?: boolean } = {},
): Promise<ReflectionRun> {
  const cfg = deps.policy.background.reflection;
  const now = deps.clock.now().toISOString();
  // In write order: passages are runs of consecutive episodes.
  const episodes = opts.episodes
    ? [...opts.episodes].sort(
        (a, b) =>
          a.createdAt.localeCompare(b.createdAt) ||
          a.origin.observedAt.localeCompare(b.origin.observedAt) ||
          a.id.localeCompare(b.id),
      )
    : await deps.store.unreflectedEpisodes(ownerId, { now, limit: cfg.maxEpisodes });
  const run: ReflectionRun = {
    episodes: episodes.length,
    groups: 0,
    claims: 0,
    written: [],
    confirmed: [],
    superseded: [],
    conflicts: [],
    rejected: [],
  };
  if (episodes.length === 0) return run;

  const vectors = await vectorsOf(deps, ownerId, episodes);
  // Related turns close together: groups form within passages.
  const groups: string[][] = [];
  for (const passage of passagesOf(episodes, cfg.contextWindow))
    groups.push(
      ...(await groupBySimilarity(
        passage.map((e) => ({ id: e.id, vector: vectors.get(e.id)! })),
        cfg.groupSimilarity,
      )),
    );
  run.groups = groups.length;
  const byId = new Map(episodes.map((e) => [e.id, e]));
  const claims: ExtractedClaim[] = [];
  const audit = [];
  for (const group of groups) {
    const input = {
      ownerId,
      episodes: group.map((id) => {
        const e = byId.get(id)!;
        return { id, text: e.text, observedAt: e.origin.observedAt, ...extractionAuthority(e) };
      }),
    };
    try {
      const got = await extractor.extract(input);
      checkClaims(got, new Set(group));
      claims.push(...got);
    } catch (e) {
      const rejection = asRejection(e);
      // Transient failures (network, rate limits) fail the job, which retries.
      if (!rejection || rejection.retryable) throw e;
      run.rejected.push({ episodes: group, reason: rejection.reason });
      audit.push(
        auditEvent(REFLECTION_CALLER, 'refuse', now, ownerId, {
          memoryIds: group,
          reason: `extractor_${rejection.reason}`,
          details: { extractor: extractor.info.name, version: extractor.info.version },
        }),
      );
    }
  }

  const merged = newestPerKey(mergeClaims(claims, byId), byId);
  const position = new Map(episodes.map((e, i) => [e.id, i]));
  run.claims = merged.length;
  const items: DerivedWrite[] = [];
  for (const claim of merged) {
    const key = keyOfClaim(claim);
    // Sources in the order they were written (the episodes come oldest
    // first), so a claim's lineage reads like the conversation it came from.
    let sources = [...claim.sourceIds].sort((a, b) => position.get(a)! - position.get(b)!);
    let confidence = claim.confidence;
    const authority = authorityOf(claim, byId);
    const current = (await deps.store.getByKey(ownerId, key)).find(
      (m) => isLiveAt(m, now) && !m.conflict,
    );
    if (current && sameClaim(current, claim)) {
      // An equal claim confirms what is held: more sources, more confidence.
      // Evidence that vouches less than the held claim adds nothing to it
      // (joined, it would lower the claim to its own authority); evidence
      // that vouches more writes the claim anew from itself alone, which
      // supersedes the weaker version.
      const known = new Set(current.derivedFrom);
      const held = AUTHORITY_RANK[current.authority];
      if (sources.every((s) => known.has(s)) || held > AUTHORITY_RANK[authority]) {
        run.confirmed.push(current.id);
        continue;
      }
      if (held === AUTHORITY_RANK[authority]) {
        sources = [...new Set([...current.derivedFrom, ...sources])];
        confidence = Math.min(0.99, 1 - (1 - current.confidence) * (1 - confidence));
      }
    }
    const observed = sources
      .map((s) => byId.get(s)?.origin.observedAt)
      .filter((x): x is string => !!x)
      .sort();
    items.push({
      idParts: ['reflect', ownerId, key, claim.relations[0]?.type ?? '', ...[...sources].sort()],
      input: derivedInput({
        kind: claim.kind,
        text: claim.text,
        // Asked for as an inference; the write path lowers it to what the
        // sources vouch for (the same as `authority` here).
        authority: 'agent_inferred',
        key,
        confidence,
        derivedFrom: sources,
        about: claim.about,
        relations: claim.relations,
        tags: ['reflection'],
        origin: {
          extractor: extractor.info,
          ...(observed.length ? { observedAt: observed[observed.length - 1] } : {}),
        },
      }),
    });
  }

  if (cfg.sentenceKeys) for (const e of episodes) items.push(...sentenceKeysOf(ownerId, e));
  if (cfg.contextKeys)
    for (const group of groups)
      if (group.length >= 2)
        items.push(
          contextSummaryOf(
            ownerId,
            group.map((id) => byId.get(id)!),
          ),
        );

  // Each turn's vector now reads the turn before it (turn-context.ts): put
  // in place before the episodes are marked, so a run that dies between
  // the two is run again and does it again. Re-derivation leaves them be.
  if (cfg.turnContext && opts.markReflected !== false) {
    const updates = await vectorsInContext(deps, ownerId, episodes);
    if (updates.length > 0) await deps.store.replaceEmbeddings(ownerId, updates);
  }

  // Every episode read is marked, a refused group's too: its refusal is
  // audited with the episode ids, and reading it again would only send the
  // same episodes to the same extractor (and hold up every episode behind it).
  const result = await writeDerived(deps, REFLECTION_CALLER, ownerId, items, {
    audit,
    ...(opts.markReflected === false
      ? {}
      : { reflected: [{ ownerId, ids: episodes.map((e) => e.id), at: now }] }),
  });
  run.written = result.written.map((m) => m.id);
  run.superseded = result.superseded;
  run.conflicts = result.written.filter((m) => m.conflict).map((m) => m.id);
  return run;
}
