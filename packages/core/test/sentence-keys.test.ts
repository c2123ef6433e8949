// Sentence keys: the statements a long turn makes about its speaker, each a
// key only to that turn.
import { describe, expect, it } from 'vitest';
import {
  SENTENCE_KEY_MIN_TURN_CHARS,
  SENTENCE_KEYS_PER_TURN,
  keySentences,
  sentenceKeysOf,
} from '../src/jobs/sentence-keys.ts';
import { SENTENCE_TAG, isSentenceKey } from '../src/domain/derived-kinds.ts';
import { keysOnly } from '../src/domain/derived-keys.ts';
import { FIXTURE_T0, memoryFixture } from '../src/testing.ts';

const filler = 'The weather report said the coast would stay dry through the afternoon. ';
const long = (...sentences: string[]) => {
  let text = sentences.join(' ');
  while (text.length < SENTENCE_KEY_MIN_TURN_CHARS) text += ` ${filler}`;
  return text;
};

describe('keySentences', () => {
  it("keeps a long turn's first-person statements, in order", () => {
    const text = long(
      'What should one consider when buying a tree stand?',
      'By the way, I caught 7 largemouth bass on my trip to Lake Michigan with Alex.',
      'Tree stands come in many shapes.',
      'We are going back in July.',
    );
    expect(keySentences(text)).toEqual([
      'By the way, I caught 7 largemouth bass on my trip to Lake Michigan with Alex.',
      'We are going back in July.',
    ]);
  });

  it('leaves a short turn alone: it is its own key', () => {
    expect(keySentences('I caught 7 largemouth bass with Alex.')).toEqual([]);
  });

  it('keeps at most SENTENCE_KEYS_PER_TURN', () => {
    const many = Array.from({ length: 20 }, (_, i) => `I tried recipe number ${i} last week.`);
    expect(keySentences(long(...many))).toHaveLength(SENTENCE_KEYS_PER_TURN);
  });

  it('skips sentences too short to say anything', () => {
    expect(keySentences(long('I see.', 'Ok me too.'))).toEqual([]);
  });
});

describe('sentenceKeysOf', () => {
  const episode = memoryFixture('o', {
    id: 'e1',
    kind: 'episode',
    text: long('My grandma turned 75 last month and I baked the cake.'),
    origin: { sessionId: 's', observedAt: FIXTURE_T0, writtenBy: 'w', speaker: 'Sam' },
  });

  it('writes each as a summary DERIVED_FROM its turn, with the speaker, keyed by turn and position', () => {
    const [w, ...rest] = sentenceKeysOf('o', episode);
    expect(rest).toEqual([]);
    expect(w!.input).toMatchObject({
      kind: 'summary',
      key: 'sentence:e1:0',
      text: 'Sam: My grandma turned 75 last month and I baked the cake.',
      derivedFrom: ['e1'],
      authority: 'agent_inferred',
      tags: ['reflection', SENTENCE_TAG],
    });
    expect(w!.idParts).toEqual(sentenceKeysOf('o', episode)[0]!.idParts);
  });

  it('is a key only: recall returns the turn, never the quote', () => {
    const key = memoryFixture('o', {
      id: 'k',
      kind: 'summary',
      text: 'Sam: My grandma turned 75.',
      derivedFrom: ['e1'],
      tags: ['reflection', SENTENCE_TAG],
    });
    expect(isSentenceKey(key)).toBe(true);
    expect(keysOnly([key], new Set(), { maxSourcesPerDerived: 3 })).toEqual(['k']);
  });
});
