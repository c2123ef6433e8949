// The built-in, deterministic Extractor: finds preference, constraint, goal
// and profile statements in episodes with patterns, negation included, so
// reflection works with no LLM. "I'd rather not work with finance clients
// after that last project" gives PREFERS_AGAINST finance clients, reason
// "that last project". It reads statements, not actions: "searched for jobs
// avoiding finance" is not taken as a stated preference. In a third-party
// text (a web page) "I" and "we" are its author, not the owner.
import type {
  ExtractedClaim,
  ExtractionEpisode,
  ExtractionInput,
  Extractor,
} from '../ports/extractor.ts';
import type { EntityRef, ExtractorInfo, RelationInput } from '../domain/record.ts';

export const STATEMENT_EXTRACTOR_INFO: ExtractorInfo = {
  name: 'keepgraph-statements',
  version: '1',
};

type ClaimKind = ExtractedClaim['kind'];

interface Pattern {
  relation: string;
  kind: ClaimKind;
  /** Verb phrases that follow the subject (order matters: longest first). */
  verbs: string[];
  /** How the claim reads: subject, then this, then the object. */
  reads: string;
  confidence: number;
}

// Negative forms come before positive ones, and a matched span is masked,
// so "doesn't like X" never also reads as "likes X".
const PATTERNS: Pattern[] = [
  {
    relation: 'PREFERS_AGAINST',
    kind: 'preference',
    reads: 'prefers to avoid',
    confidence: 0.8,
    verbs: [
      "'d rather not work with",
      ' would rather not work with',
      "'d rather not deal with",
      ' would rather not deal with',
      "'d rather not",
      ' would rather not',
      ' prefers? not to work with',
      ' prefers? not to',
      " (?:doesn't|does not|don't|do not) (?:like|want|enjoy)",
      " (?:doesn't|does not|don't|do not) want to work with",
      ' (?:never|no longer) wants? to work with',
      ' (?:dislikes?|hates?|detests?|loathes?)',
      " can't stand",
      ' (?:is|am|are) (?:tired|sick) of',
      " (?:'m|'re) (?:tired|sick) of",
      ' (?:wants?|want) to avoid',
      ' avoids?',
    ],
  },
  {
    relation: 'HAS_CONSTRAINT',
    kind: 'constraint',
    reads: 'cannot',
    confidence: 0.8,
    verbs: [
      " (?:can't|cannot|can not|must not|mustn't|is unable to|am unable to|are unable to)",
      ' (?:is|am|are) allergic to',
      " (?:'m|'re) allergic to",
    ],
  },
  {
    relation: 'PREFERS',
    kind: 'preference',
    reads: 'prefers',
    confidence: 0.75,
    verbs: [
      "'d rather",
      ' would rather',
      ' (?:prefers?|likes?|loves?|enjoys?)',
      ' (?:is|am|are) a (?:big )?fan of',
      " (?:'m|'re) a (?:big )?fan of",
    ],
  },
  {
    relation: 'HAS_GOAL',
    kind: 'goal',
    reads: 'wants to',
    confidence: 0.7,
    verbs: [
      ' (?:wants?|hopes?|plans?|aims?|intends?) to',
      ' (?:is|am|are) (?:planning|trying|hoping) to',
      " (?:'m|'re) (?:planning|trying|hoping) to",
      "(?:'s| is) goal is to",
    ],
  },
  {
    relation: 'LIVES_IN',
    kind: 'profile',
    reads: 'lives in',
    confidence: 0.8,
    verbs: [' (?:lives?|live) in', ' (?:is|am|are) based in', " (?:'m|'re) based in"],
  },
  {
    relation: 'WORKS_AS',
    kind: 'profile',
    reads: 'works as',
    confidence: 0.8,
    verbs: [' works? as an?'],
  },
];

// Adverbs between subject and verb, each with its leading space.
const INTENSIFIERS =
  '(?<intens>(?: (?:really|strongly|truly|definitely|absolutely|still|also|now|generally|usually|very much|much))*)';
// A subject is "I"/"we" or a capitalised name of one or two words.
const SUBJECT = '(?<subj>I|[Ww]e|[A-Z][a-z]+(?: [A-Z][a-z]+)?)';
const NOT_NAMES = new Set([
  'The',
  'This',
  'That',
  'It',
  'He',
  'She',
  'They',
  'You',
  'There',
  'Here',
  'What',
  'Who',
  'When',
  'Then',
  'And',
  'But',
  'So',
  'Feedback',
  'Note',
  'Outcome',
  'Result',
  'Also',
]);
// Where an object phrase ends, and the reason after it begins.
const REASON_START = /\s+(?:after|because(?: of)?|since|due to|given)\s+/i;
const OBJECT_END = /\s*(?:[,;:.!?]|\s(?:but|and then|when|while|so|unless|though)\s)/i;
const LEADING =
  /^(?:to\s+)?(?:work(?:ing)? with|deal(?:ing)? with|having|using|taking|any|the|a|an|more|new)\s+/i;

// Each pattern as one expression: subject, adverbs, verb phrase, the rest.
const MATCHERS: readonly [Pattern, RegExp][] = PATTERNS.map((p) => [
  p,
  new RegExp(
    `(?:^|[\\s:;,"'(])${SUBJECT}${INTENSIFIERS}(?<verb>${p.verbs.join('|')})\\s+(?<rest>[^]*)$`,
    'u',
  ),
]);

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function firstPerson(subj: string): boolean {
  return subj === 'I' || subj.toLowerCase() === 'we';
}

/** Who "I" and "we" are in an episode: the owner, or a third-party text's author. */
interface Speaker {
  entity: EntityRef;
  /** How a claim's text names them. */
  who: string;
}

const OWNER: Speaker = { entity: { name: 'user', type: 'person' }, who: 'The user' };

/**
 * The first person of an episode. In a third-party text (a web page, a
 * document) "I" and "we" are its author: a page saying "we would rather
 * not stay anywhere else" states nothing about the owner. The author is
 * named by the page's host (or its source, or nothing more).
 */
function speakerOf(e: ExtractionEpisode): Speaker {
  if (e.authority !== 'third_party') return OWNER;
  let where = e.source;
  try {
    if (where !== undefined) where = new URL(where).hostname || where;
  } catch {
    // Not a URL: a document name or a tool, named as it is.
  }
  const name = where ? `author of ${where.slice(0, 100)}` : 'author of a third-party source';
  return { entity: { name, type: 'person' }, who: `The ${name}` };
}

/** Trim a phrase to its useful words: "the last project." → "the last project". */
function clean(phrase: string): string {
  return phrase
    .replace(/^["'(]+|["')\s.]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function objectAndReason(rest: string): { object: string; reason: string | null } {
  let object = rest;
  let reason: string | null = null;
  const r = REASON_START.exec(object);
  if (r) {
    reason = clean(object.slice(r.index + r[0].length).split(OBJECT_END)[0] ?? '');
    object = object.slice(0, r.index);
  }
  object = object.split(OBJECT_END)[0] ?? '';
  for (let i = 0; i < 3; i++) object = object.replace(LEADING, '');
  return { object: clean(object), reason: reason || null };
}

/** The key that makes a claim and its contradiction the same claim (PREFERS vs PREFERS_AGAINST). */
export function claimKey(relation: string, subject: string, object: string): string {
  const family = relation === 'PREFERS' || relation === 'PREFERS_AGAINST' ? 'PREFERENCE' : relation;
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  return `${family.toLowerCase()}:${norm(subject)}:${norm(object)}`;
}

interface Found {
  key: string;
  claim: ExtractedClaim;
}

function extractSentence(sentence: string, episodeId: string, speaker: Speaker): Found[] {
  const found: Found[] = [];
  let masked = sentence;
  for (const [p, re] of MATCHERS) {
    const m = re.exec(masked);
    if (!m?.groups) continue;
    const subjRaw = m.groups.subj!;
    if (NOT_NAMES.has(subjRaw)) continue;
    const { object, reason } = objectAndReason(m.groups.rest!);
    if (object.length < 2 || object.split(' ').length > 8) continue;
    const subject: EntityRef = firstPerson(subjRaw)
      ? speaker.entity
      : { name: subjRaw, type: 'person' };
    const objectRef: EntityRef = { name: object.toLowerCase(), type: 'thing' };
    const relation: RelationInput = {
      subject,
      type: p.relation,
      object: objectRef,
      ...(reason ? { reason } : {}),
    };
    const who = firstPerson(subjRaw) ? speaker.who : subjRaw;
    const strong = /strongly|really|absolutely|definitely/i.test(m.groups.intens ?? '');
    const text = `${who} ${p.reads} ${object}${reason ? `, because of ${reason}` : ''}.`;
    found.push({
      key: claimKey(p.relation, subject.name, objectRef.name),
      claim: {
        kind: p.kind,
        text,
        confidence: Math.min(0.95, p.confidence + (strong ? 0.1 : 0)),
        sourceIds: [episodeId],
        about: [subject, objectRef],
        relations: [relation],
      },
    });
    // Mask the match so a later (positive) pattern cannot read it again.
    masked =
      masked.slice(0, m.index) + ' '.repeat(m[0].length) + masked.slice(m.index + m[0].length);
  }
  return found;
}

/** Same key and relation: one claim with every supporting episode. */
function merge(found: Found[]): ExtractedClaim[] {
  const byKey = new Map<string, ExtractedClaim>();
  for (const f of found) {
    const id = `${f.key}|${f.claim.relations[0]?.type}`;
    const prev = byKey.get(id);
    if (!prev) {
      byKey.set(id, f.claim);
      continue;
    }
    prev.sourceIds = [...new Set([...prev.sourceIds, ...f.claim.sourceIds])];
    prev.confidence = Math.min(0.99, 1 - (1 - prev.confidence) * (1 - f.claim.confidence));
    const r = prev.relations[0];
    const reason = f.claim.relations[0]?.reason;
    if (r && !r.reason && reason) {
      r.reason = reason;
      prev.text = f.claim.text;
    }
  }
  return [...byKey.values()];
}

export function createStatementExtractor(): Extractor {
  return {
    info: STATEMENT_EXTRACTOR_INFO,
    async extract(input: ExtractionInput): Promise<ExtractedClaim[]> {
      const found = input.episodes.flatMap((e) =>
        sentences(e.text).flatMap((s) => extractSentence(s, e.id, speakerOf(e))),
      );
      return merge(found);
    },
  };
}
