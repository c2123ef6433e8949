// Synthetic workload generator (issue 4, item 4): seeded and deterministic
// (same options, byte-identical output), streaming (a generator function
// holding one owner's small state at a time, so 1M records never sit in
// memory), producing MemoryInput records labelled with what they are.
//
// What a workload holds, per owner (owners are emitted one after another,
// each in time order):
//   - episodes spread over sessions (origin sessionId/turn/speaker/observedAt),
//     some from tools (origin.tool, authority tool) and some from third-party
//     pages (origin.source url, authority third_party);
//   - preferences and constraints under keys ("prefers X", "never Y",
//     "allergic to Z");
//   - contradictions: a later episode that reverses an earlier preference or
//     constraint, followed by the updated preference under the same key
//     (derived from that episode), labelled with the id it reverses;
//   - derived chains rooted at an episode, depth x fan-out (facts, then rules,
//     then summaries, authority agent_inferred), optionally a DAG (a node may
//     also derive from a second node of the level above);
//   - secrets and personal data sprinkled at known rates, each labelled with
//     its kind and what the default policy must do (refuse or redact).
// Owner sizes are Zipf-skewed (a few big owners, many small ones) or fixed.
//
// Ids are the workload's own (`<owner>:m<n>`); derivedFrom names them. A
// benchmark that writes through the engine maps them to the ids it gets back.
import type { EntityRef, MemoryInput, MemoryKind, RelationInput } from '@keepgraph/core';
import { PEOPLE, THINGS, VERBS, WHEN, WHY, pick, rng } from '../synthetic.ts';
import {
  PERSONAL_KINDS,
  SECRET_KINDS,
  SENSITIVE_KINDS,
  sensitiveSentence,
  type SensitiveExpectation,
  type SensitiveKind,
} from './sensitive.ts';

export type WorkloadRole =
  | 'episode'
  | 'tool_result'
  | 'third_party'
  | 'preference'
  | 'constraint'
  | 'reversal'
  | 'update'
  | 'derived'
  | 'secret'
  | 'personal';

/** What the default policy should do with a record. */
export type Expectation = 'stored' | SensitiveExpectation;

/** A MemoryInput whose derivedFrom names workload ids. */
export type WorkloadInput = MemoryInput & {
  kind: MemoryKind;
  text: string;
  origin: NonNullable<MemoryInput['origin']>;
  derivedFrom: string[];
};

export interface WorkloadRecord {
  /** Position in the whole workload, from 0. */
  seq: number;
  /** The workload's id for this record: `<ownerId>:m<n>`. */
  id: string;
  ownerId: string;
  role: WorkloadRole;
  expect: Expectation;
  /** Secrets and personal data: which kind the text carries. */
  sensitive?: SensitiveKind;
  /** Derived records: the chain's root episode and this record's level (1 = derived from the root). */
  chain?: { root: string; level: number };
  /** Reversals and updates: the id of the preference or constraint they contradict. */
  reverses?: string;
  input: WorkloadInput;
}

export interface WorkloadOptions {
  owners: number;
  memories: number;
  seed: number;
  /** 'skewed' (Zipf, default) or 'fixed' (memories / owners each, remainder to the first). */
  ownerSizes?: 'skewed' | 'fixed';
  /** Zipf exponent for skewed sizes (default 1). */
  skew?: number;
  /** Owner ids: `<prefix><index padded>` (default 'owner-'). */
  ownerPrefix?: string;
  /** Or name owners yourself (module use). */
  ownerName?: (index: number) => string;
  /** Share of records carrying a secret (default 0.01). */
  secretRate?: number;
  /** Share of records carrying personal data (default 0.01). */
  personalRate?: number;
  /** Share of records that state a new preference or constraint (default 0.04). */
  preferenceRate?: number;
  /** Share of records that reverse an earlier preference (default 0.01; each is followed by its update). */
  updateRate?: number;
  /** Share of episodes from a tool (default 0.05) and from a third-party page (default 0.02). */
  toolRate?: number;
  thirdPartyRate?: number;
  /** Share of plain episodes that root a derived chain (default 0.005). */
  chainRate?: number;
  chainDepth?: number;
  chainFanout?: number;
  /** Chance that a derived node at level 2+ also derives from a second node of the level above (default 0.1). */
  crossLinkRate?: number;
  /** Share of episodes written with an explicit short TTL (default 0.1). */
  ttlRate?: number;
  /** First observation time (default 2025-01-01). */
  start?: string;
}

type Resolved = Required<Omit<WorkloadOptions, 'ownerName'>> & {
  ownerName: (i: number) => string;
};

export function resolveOptions(o: WorkloadOptions): Resolved {
  if (!(o.owners >= 1) || !(o.memories >= o.owners))
    throw new Error('need owners >= 1 and memories >= owners');
  const prefix = o.ownerPrefix ?? 'owner-';
  const width = String(o.owners - 1).length;
  const resolved: Resolved = {
    ownerSizes: 'skewed',
    skew: 1,
    secretRate: 0.01,
    personalRate: 0.01,
    preferenceRate: 0.04,
    updateRate: 0.01,
    toolRate: 0.05,
    thirdPartyRate: 0.02,
    chainRate: 0.005,
    chainDepth: 2,
    chainFanout: 3,
    crossLinkRate: 0.1,
    ttlRate: 0.1,
    start: '2025-01-01T00:00:00.000Z',
    ...stripUndefined(o),
    owners: o.owners,
    memories: o.memories,
    seed: o.seed,
    ownerPrefix: prefix,
    ownerName: o.ownerName ?? ((i) => `${prefix}${String(i).padStart(width, '0')}`),
  };
  const sum =
    resolved.secretRate +
    resolved.personalRate +
    resolved.preferenceRate +
    resolved.updateRate +
    resolved.toolRate +
    resolved.thirdPartyRate;
  if (sum >= 1) throw new Error('the rates add up to 1 or more');
  return resolved;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Memories per owner, summing to `memories`: Zipf-skewed (largest first) or fixed. */
export function ownerSizes(o: WorkloadOptions): number[] {
  const { owners, memories } = o;
  if (o.ownerSizes === 'fixed') {
    const each = Math.floor(memories / owners);
    return Array.from({ length: owners }, (_, i) => each + (i < memories - each * owners ? 1 : 0));
  }
  const s = o.skew ?? 1;
  const w = Array.from({ length: owners }, (_, i) => 1 / (i + 1) ** s);
  const total = w.reduce((a, b) => a + b, 0);
  const spare = memories - owners; // every owner gets at least one
  const sizes = w.map((x) => 1 + Math.floor((spare * x) / total));
  let left = memories - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % owners, left--) sizes[i]! += 1;
  return sizes;
}

/** A per-owner seed, so one owner's records do not depend on the others'. */
export function ownerSeed(seed: number, index: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

const PREFERENCE_TOPICS: readonly (readonly [string, readonly string[]])[] = [
  ['seat', ['aisle seats on long flights', 'window seats', 'seats near the front of the plane']],
  ['cuisine', ['Italian food', 'Japanese food', 'vegetarian restaurants', 'spicy Thai dishes']],
  ['hotel', ['small boutique hotels', 'hotels near the station', 'apartments with a kitchen']],
  ['music', ['jazz concerts', 'classical music', 'indie rock gigs']],
  ['meetings', ['morning meetings', 'meetings after lunch', 'short video calls']],
  ['drink', ['green tea', 'oat milk lattes', 'sparkling water']],
  ['travel', ['trains over planes', 'direct flights only', 'road trips']],
];
const CONSTRAINT_TOPICS: readonly (readonly [string, readonly string[]])[] = [
  ['allergy', ['is allergic to peanuts', 'is allergic to shellfish', 'is allergic to penicillin']],
  ['never', ['never takes red-eye flights', 'never eats pork', 'never works on Sundays']],
  [
    'budget',
    ['keeps hotels under 200 euros a night', 'flies economy only', 'spends at most 50 on dinner'],
  ],
  ['access', ['needs step-free access', 'needs a quiet room', 'cannot climb stairs']],
];
const TOOLS = ['calendar', 'email', 'flights', 'weather', 'crm'];
const SITES = ['reviews.example.com', 'travel.example.net', 'news.example.org'];

const iso = (ms: number) => new Date(ms).toISOString();

/** Per-owner state while its records are generated. */
interface OwnerState {
  ownerId: string;
  name: string;
  r: () => number;
  next: number; // local memory counter
  t: number; // current time, ms
  session: number;
  turn: number;
  sessionLength: number;
  gapMs: number;
  /** Current preference/constraint per key: id and value. */
  current: Map<string, { id: string; value: string; kind: 'preference' | 'constraint' }>;
}

function advance(st: OwnerState): void {
  const r = st.r;
  if (st.turn >= st.sessionLength) {
    st.session += 1;
    st.turn = 0;
    st.sessionLength = 5 + Math.floor(r() * 35);
    st.t += Math.round(st.gapMs * (0.25 + 1.5 * r()));
  }
  st.turn += 1;
  st.t += 20_000 + Math.floor(r() * 280_000);
}

function sessionOrigin(st: OwnerState, speaker: string): WorkloadInput['origin'] {
  return {
    sessionId: `${st.ownerId}:s${st.session}`,
    turn: String(st.turn),
    speaker,
    observedAt: iso(st.t),
  };
}

/** What a tool returned about the owner, within the current session. */
function toolOutput(st: OwnerState): Pick<WorkloadInput, 'text' | 'origin'> {
  const tool = pick(st.r, TOOLS);
  return {
    text: `${tool} result: ${pick(st.r, THINGS)} confirmed for ${st.name} ${pick(st.r, WHEN)}`,
    origin: {
      sessionId: `${st.ownerId}:s${st.session}`,
      tool: { name: tool, callId: `call-${st.next}` },
      observedAt: iso(st.t),
    },
  };
}

/** A page someone else published, outside any session. */
function thirdPartyPage(st: OwnerState): Pick<WorkloadInput, 'text' | 'origin'> {
  const site = pick(st.r, SITES);
  const uri = `https://${site}/article/${st.next}`;
  return {
    text: `A review says ${pick(st.r, THINGS)} is worth it ${pick(st.r, WHY)}`,
    origin: { source: { kind: 'url', uri }, observedAt: iso(st.t) },
  };
}

function episodeSentence(r: () => number, name: string): string {
  return `${name} ${pick(r, VERBS)} ${pick(r, THINGS)} ${pick(r, WHEN)} ${pick(r, WHY)}`;
}

const person = (name: string): EntityRef => ({ name, type: 'person' });

/**
 * One derived chain below `rootId`: `depth` levels of `fanout` children per
 * node (facts, then rules, then summaries), breadth first, at most `limit`
 * nodes. `newId` names each node. With `crossLinkRate`, a node at level 2+
 * may also derive from a second node of the level above: a DAG.
 */
export function derivedChain(opts: {
  r: () => number;
  ownerId: string;
  rootId: string;
  name: string;
  depth: number;
  fanout: number;
  crossLinkRate?: number;
  limit?: number;
  newId: () => string;
  observedAt: string;
}): Omit<WorkloadRecord, 'seq'>[] {
  const { r, ownerId, rootId, name, depth, fanout, newId, observedAt } = opts;
  const limit = opts.limit ?? Infinity;
  const out: Omit<WorkloadRecord, 'seq'>[] = [];
  let level = [rootId];
  for (let d = 1; d <= depth && out.length < limit; d++) {
    const nextLevel: string[] = [];
    for (const parent of level) {
      for (let k = 0; k < fanout && out.length < limit; k++) {
        const id = newId();
        const derivedFrom = [parent];
        if (d >= 2 && level.length > 1 && r() < (opts.crossLinkRate ?? 0)) {
          const other = level[Math.floor(r() * level.length)]!;
          if (other !== parent) derivedFrom.push(other);
        }
        const thing = pick(r, THINGS);
        const kind: MemoryKind = d === 1 ? 'fact' : d === 2 ? 'rule' : 'summary';
        const text =
          d === 1
            ? `${name} seems interested in ${thing} (inferred, level 1, #${out.length})`
            : d === 2
              ? `${name} usually ${pick(r, VERBS)} ${thing} ${pick(r, WHY)} (rule, level 2, #${out.length})`
              : `Summary level ${d} #${out.length}: ${name} keeps coming back to ${thing}`;
        const relations: RelationInput[] =
          d === 1
            ? [
                {
                  subject: person(name),
                  type: 'INTERESTED_IN',
                  object: { name: thing, type: 'thing' },
                },
              ]
            : [];
        out.push({
          id,
          ownerId,
          role: 'derived',
          expect: 'stored',
          chain: { root: rootId, level: d },
          input: {
            kind,
            text,
            origin: {
              extractor: { name: 'bench-reflector', version: '1' },
              observedAt,
            },
            authority: 'agent_inferred',
            derivedFrom,
            about: [person(name)],
            relations,
          },
        });
        nextLevel.push(id);
      }
    }
    level = nextLevel;
  }
  return out;
}

/** Number of derived memories in a full chain of depth x fanout. */
export function chainSize(depth: number, fanout: number): number {
  let n = 0;
  for (let d = 1, w = fanout; d <= depth; d++, w *= fanout) n += w;
  return n;
}

type Category =
  'secret' | 'personal' | 'preference' | 'update' | 'tool' | 'third_party' | 'episode';

function category(o: Resolved, x: number): Category {
  const cuts: [number, Category][] = [
    [o.secretRate, 'secret'],
    [o.personalRate, 'personal'],
    [o.preferenceRate, 'preference'],
    [o.updateRate, 'update'],
    [o.toolRate, 'tool'],
    [o.thirdPartyRate, 'third_party'],
  ];
  for (const [rate, c] of cuts) {
    if (x < rate) return c;
    x -= rate;
  }
  return 'episode';
}

/** Records of one owner, in time order. */
function* ownerRecords(
  o: Resolved,
  index: number,
  size: number,
  seqStart: number,
): Generator<WorkloadRecord> {
  const r = rng(ownerSeed(o.seed, index));
  const ownerId = o.ownerName(index);
  const avgSession = 22;
  const st: OwnerState = {
    ownerId,
    name: pick(r, PEOPLE),
    r,
    next: 0,
    t: new Date(o.start).getTime() + Math.floor(r() * 30 * 86_400_000),
    session: 0,
    turn: 0,
    sessionLength: 5 + Math.floor(r() * 35),
    // About a year of history whatever the owner's size, at most 3 days between sessions.
    gapMs: Math.min(3 * 86_400_000, (365 * 86_400_000 * avgSession) / Math.max(size, 1)),
    current: new Map(),
  };
  let seq = seqStart;
  const newId = () => `${ownerId}:m${st.next++}`;
  const emit = (rec: Omit<WorkloadRecord, 'seq'>): WorkloadRecord => ({ seq: seq++, ...rec });

  while (st.next < size) {
    advance(st);
    const remaining = size - st.next;
    const cat = category(o, r());
    const userSpeaks = r() < 0.7;
    const speaker = userSpeaks ? st.name : 'Assistant';
    const ttl = r() < o.ttlRate ? pick(r, [3_600, 86_400, 7 * 86_400]) : undefined;

    if (cat === 'secret' || cat === 'personal') {
      const isSecret = cat === 'secret';
      const kind = pick(r, isSecret ? SECRET_KINDS : PERSONAL_KINDS);
      yield emit({
        id: newId(),
        ownerId,
        role: isSecret ? 'secret' : 'personal',
        expect: SENSITIVE_KINDS[kind],
        sensitive: kind,
        input: {
          kind: 'episode',
          text: `${episodeSentence(r, st.name)}. ${sensitiveSentence(r, kind, st.name)}`,
          origin: sessionOrigin(st, st.name),
          derivedFrom: [],
        },
      });
      continue;
    }
    let fallThrough = false;
    if (cat === 'preference') {
      const constraint = r() < 0.4;
      const topics = constraint ? CONSTRAINT_TOPICS : PREFERENCE_TOPICS;
      const [topic, values] = pick(r, topics);
      const key = `${constraint ? 'constraint' : 'pref'}:${topic}`;
      if (!st.current.has(key)) {
        const value = pick(r, values);
        const id = newId();
        const kind = constraint ? 'constraint' : 'preference';
        st.current.set(key, { id, value, kind });
        yield emit({
          id,
          ownerId,
          role: kind,
          expect: 'stored',
          input: {
            kind,
            key,
            text: constraint ? `${st.name} ${value}` : `${st.name} prefers ${value}`,
            origin: sessionOrigin(st, st.name),
            derivedFrom: [],
            about: [person(st.name)],
            relations: [
              {
                subject: person(st.name),
                type: constraint ? 'CONSTRAINED_BY' : 'PREFERS',
                object: { name: value, type: 'thing' },
              },
            ],
          },
        });
        continue;
      }
      // The key is taken: a plain episode instead.
      fallThrough = true;
    }
    if (!fallThrough && cat === 'update' && st.current.size > 0 && remaining >= 2) {
      const keys = [...st.current.keys()].sort();
      const key = pick(r, keys);
      const prev = st.current.get(key)!;
      const topics = prev.kind === 'constraint' ? CONSTRAINT_TOPICS : PREFERENCE_TOPICS;
      const values = topics.find(([t]) => key.endsWith(`:${t}`))![1];
      const others = values.filter((v) => v !== prev.value);
      const value = others.length > 0 ? pick(r, others) : prev.value;
      const say = (v: string) => (prev.kind === 'constraint' ? v : `prefers ${v}`);
      const episodeId = newId();
      yield emit({
        id: episodeId,
        ownerId,
        role: 'reversal',
        expect: 'stored',
        reverses: prev.id,
        input: {
          kind: 'episode',
          text: `Actually ${st.name} no longer ${say(prev.value)}; from now on ${st.name} ${say(value)}`,
          origin: sessionOrigin(st, st.name),
          derivedFrom: [],
        },
      });
      advance(st);
      const id = newId();
      yield emit({
        id,
        ownerId,
        role: 'update',
        expect: 'stored',
        reverses: prev.id,
        input: {
          kind: prev.kind,
          key,
          text: `${st.name} ${say(value)}`,
          origin: sessionOrigin(st, st.name),
          derivedFrom: [episodeId],
          about: [person(st.name)],
        },
      });
      st.current.set(key, { id, value, kind: prev.kind });
      continue;
    }
    if (!fallThrough && (cat === 'tool' || cat === 'third_party')) {
      // The id first: the origin names the next local counter after it.
      const id = newId();
      const { text, origin } = cat === 'tool' ? toolOutput(st) : thirdPartyPage(st);
      yield emit({
        id,
        ownerId,
        role: cat === 'tool' ? 'tool_result' : 'third_party',
        expect: 'stored',
        input: { kind: 'episode', text, origin, authority: cat, derivedFrom: [] },
      });
      continue;
    }
    const id = newId();
    yield emit({
      id,
      ownerId,
      role: 'episode',
      expect: 'stored',
      input: {
        kind: 'episode',
        text: episodeSentence(r, userSpeaks ? 'I' : st.name),
        origin: sessionOrigin(st, speaker),
        ...(ttl ? { ttlSeconds: ttl } : {}),
        derivedFrom: [],
      },
    });
    // Chains hang off episodes that keep the default TTL (a derived memory
    // expires with its earliest source, so a short root would cut it short).
    if (!ttl && remaining > 1 && r() < o.chainRate) {
      for (const rec of derivedChain({
        r,
        ownerId,
        rootId: id,
        name: st.name,
        depth: o.chainDepth,
        fanout: o.chainFanout,
        crossLinkRate: o.crossLinkRate,
        limit: remaining - 1,
        newId,
        observedAt: iso(st.t),
      }))
        yield emit(rec);
    }
  }
}

/** The whole workload, owner after owner, streamed. */
export function* generateWorkload(options: WorkloadOptions): Generator<WorkloadRecord> {
  const o = resolveOptions(options);
  const sizes = ownerSizes(o);
  let seq = 0;
  for (const [i, size] of sizes.entries()) {
    for (const rec of ownerRecords(o, i, size, seq)) {
      seq = rec.seq + 1;
      yield rec;
    }
  }
}

/** The text the engine embeds for a record (as core's embeddingText: `Speaker: text`). */
export function recordEmbeddingText(rec: WorkloadRecord): string {
  const speaker = rec.input.origin.speaker?.trim();
  return speaker ? `${speaker}: ${rec.input.text}` : rec.input.text;
}
