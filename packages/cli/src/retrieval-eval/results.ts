// The results side of the evaluation format: one JSON line per question, in
// dataset order, `{"questionId","turnIds","latencyMs"}`.
import { readFile, writeFile } from 'node:fs/promises';

/** One line of a results file. */
export interface ResultLine {
  questionId: string;
  /** Ranked source turn ids the top results cover, without duplicates. */
  turnIds: string[];
  /** Time of the one retrieval call that answered the question. */
  latencyMs: number;
}

/** Serialise results as JSON Lines, keys in the spec's order. */
export function formatResults(lines: readonly ResultLine[]): string {
  return lines
    .map(
      (l) =>
        JSON.stringify({ questionId: l.questionId, turnIds: l.turnIds, latencyMs: l.latencyMs }) +
        '\n',
    )
    .join('');
}

/** Write a results file (replacing any earlier one). */
export async function writeResults(file: string, lines: readonly ResultLine[]): Promise<void> {
  await writeFile(file, formatResults(lines), 'utf8');
}

/** A results line as read back, before validation: any JSON value, or a parse error. */
export type RawResultLine = { n: number; value: unknown } | { n: number; error: string };

/** Read a results file line by line (1-based line numbers), blank lines skipped. */
export async function readRawResults(file: string): Promise<RawResultLine[]> {
  const raw = await readFile(file, 'utf8');
  const out: RawResultLine[] = [];
  raw.split(/\r?\n/).forEach((text, i) => {
    if (text.trim() === '') return;
    try {
      out.push({ n: i + 1, value: JSON.parse(text) as unknown });
    } catch (e) {
      out.push({ n: i + 1, error: (e as Error).message });
    }
  });
  return out;
}
