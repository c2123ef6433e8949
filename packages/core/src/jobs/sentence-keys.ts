// Sentence keys: the statements a long turn makes about its speaker, each
// written down as one more key to that turn. A message of a thousand
// characters is embedded as one vector, and the one sentence in it that
// answers a later question ("by the way, I caught 7 largemouth bass with
// Alex") is diluted by everything else it says; that sentence alone is a
// much closer match for the question. Retrieval at the granularity of a
// statement rather than a passage is known to help dense retrieval (Chen et
// al., "Dense X Retrieval", 2023). Each key is DERIVED_FROM its turn and is
// a key only (derived-keys.ts): a hit lends its score to the turn, which is
// what recall returns.
import type { Memory } from '../domain/record.ts';
import { SENTENCE_TAG } from '../domain/derived-kinds.ts';
import { derivedInput, type DerivedWrite } from './derived-writes.ts';

/** Who writes sentence keys, in their origin. */
export const SENTENCE_EXTRACTOR = { name: 'keepgraph-sentences', version: '1' } as const;

/**
 * A turn shorter than this is its own key: one vector already reads it
 * closely. Swept on both development sets (bench/README.md).
 */
export const SENTENCE_KEY_MIN_TURN_CHARS = 300;

/** Sentences outside these bounds say too little, or are passages themselves. */
const MIN_SENTENCE_CHARS = 25;
const MAX_SENTENCE_CHARS = 400;

/** At most this many keys per turn, the first ones it says. */
export const SENTENCE_KEYS_PER_TURN = 8;

/** Confidence of a sentence key: it asserts nothing new, it quotes its turn. */
const SENTENCE_CONFIDENCE = 0.5;

/**
 * First-person words, in any case (a sentence may open with "My" or "We"):
 * the speaker speaks of themself, what a memory engine is asked about.
 */
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we|we're|we've|our|us)\b/iu;

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** The sentences of a turn that are keys to it, in the order it says them. */
export function keySentences(text: string): string[] {
  if (text.length < SENTENCE_KEY_MIN_TURN_CHARS) return [];
  const out: string[] = [];
  for (const { segment } of segmenter.segment(text)) {
    const s = segment.replace(/\s+/gu, ' ').trim();
    if (s.length < MIN_SENTENCE_CHARS || s.length > MAX_SENTENCE_CHARS) continue;
    if (!FIRST_PERSON.test(s)) continue;
    out.push(s);
    if (out.length >= SENTENCE_KEYS_PER_TURN) break;
  }
  return out;
}

/** The sentence keys of one episode, as derived writes with deterministic ids. */
export function sentenceKeysOf(ownerId: string, episode: Memory): DerivedWrite[] {
  const speaker = episode.origin.speaker?.trim();
  return keySentences(episode.text).map((sentence, i) => ({
    idParts: ['sentence', ownerId, episode.id, String(i)],
    input: derivedInput({
      kind: 'summary',
      key: `sentence:${episode.id}:${i}`,
      // Who said it is part of its meaning, as for the turn itself (indexed-text.ts).
      text: speaker ? `${speaker}: ${sentence}` : sentence,
      authority: 'agent_inferred',
      confidence: SENTENCE_CONFIDENCE,
      derivedFrom: [episode.id],
      tags: ['reflection', SENTENCE_TAG],
      origin: { extractor: SENTENCE_EXTRACTOR, observedAt: episode.origin.observedAt },
    }),
  }));
}
