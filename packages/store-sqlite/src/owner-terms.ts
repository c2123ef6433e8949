// Full-text terms scoped to their owner. Every word of a memory is indexed
// as the owner's tag followed by the word ("alex" of owner O is the term
// "<tag of O>alex"), so each owner's words have doclists of their own and a
// query walks only the owner's postings. The earlier scheme (migration 0004)
// ANDed every query with one owner-key term instead, whose doclist holds
// every memory of the owner: at 100k memories in one owner, walking it was
// about two thirds of a full-text search (10.6 of ~14 ms p50, bench/README),
// and FTS5's secure delete rewrote its pages on every forget.
//
// The tag is 12 letters from SHA-256 of the owner id, spelt with the
// consonants b c d f g h j k m n p q r t v w only: no vowel and no y, so
// the porter stemmer measures a tagged word as the bare word (the tag joins
// its leading consonants) and stems it the same ("yelling", "agreed",
// "years" checked), with one exception: porter leaves words of one or two
// letters alone, and tagged they are long enough to stem, so "is", "as" and
// "us" index as "i", "a" and "u". Queries are tagged alike, so such a word
// still finds itself, and may also find the letter it shares. Two owners
// sharing a tag (48 bits: about one pair in 10^7 at 10k owners) would only
// share term statistics: every search still joins on memories.owner_id.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { SEARCH_WORD } from '@keepgraph/core/ports';

const LETTERS = 'bcdfghjkmnpqrtvw';
const TAG_BYTES = 6;

/** The owner's tag: 12 consonants. */
export function ownerTag(ownerId: string): string {
  const digest = createHash('sha256').update(ownerId, 'utf8').digest();
  let tag = '';
  for (let i = 0; i < TAG_BYTES; i++) tag += LETTERS[digest[i]! >> 4]! + LETTERS[digest[i]! & 15]!;
  return tag;
}

/**
 * `text` as indexed for `ownerId`: each word (as queryTerms cuts them, so a
 * query's tagged terms are the index's) prefixed with the owner's tag,
 * separators kept.
 */
export function ownerTaggedText(ownerId: string, text: string): string {
  const tag = ownerTag(ownerId);
  return text.replace(SEARCH_WORD, (word) => tag + word);
}

/** The SQL function migration 0014 tags the existing rows with. */
const OWNER_TAGGED_TEXT_SQL = 'keepgraph_owner_tagged_text';

/** Make `keepgraph_owner_tagged_text(owner_id, text)` callable on this connection. */
export function registerOwnerTaggedText(db: Database.Database): void {
  db.function(OWNER_TAGGED_TEXT_SQL, { deterministic: true }, (ownerId: unknown, text: unknown) =>
    typeof ownerId === 'string' && typeof text === 'string' ? ownerTaggedText(ownerId, text) : null,
  );
}
