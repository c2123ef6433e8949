// When one text says everything another says: compaction's test for a true
// duplicate. Embedding similarity alone is not enough: on small sentence
// models two different statements about one topic ("I went camping with the
// kids last week" / "We're going camping next month") reach cosine 0.9, and
// a summary standing in for both would lose one of them. A member may be
// hidden behind a summary only when the summary's text carries every content
// word and every number of the member's.
import { eng as ENGLISH_STOP_WORDS } from 'stopword';

const STOP = new Set(ENGLISH_STOP_WORDS);

/** Lower-cased words and numbers of a text, stop words dropped. */
export function contentWords(text: string): Set<string> {
  const tokens =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
  return new Set(tokens.filter((t) => !STOP.has(t)));
}

/** Whether `carrier` holds every content word of `text` (a text of stop words only needs to be equal). */
export function carriesAllOf(carrier: string, text: string): boolean {
  const need = contentWords(text);
  if (need.size === 0) return carrier.trim().toLowerCase() === text.trim().toLowerCase();
  const have = contentWords(carrier);
  for (const w of need) if (!have.has(w)) return false;
  return true;
}

/** Jaccard overlap of two word sets (1 for two empty ones). */
export function jaccard(wa: ReadonlySet<string>, wb: ReadonlySet<string>): number {
  if (wa.size === 0 && wb.size === 0) return 1;
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared++;
  return shared / (wa.size + wb.size - shared);
}

/** Jaccard overlap of two texts' content words. */
export function wordOverlap(a: string, b: string): number {
  return jaccard(contentWords(a), contentWords(b));
}
