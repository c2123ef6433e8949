// The results-file checker: does a results file answer a dataset the way the
// spec requires? Run before scoring anything, ours or someone else's, so a
// figure never rests on a malformed file.
import { z } from 'zod';
import type { Dataset } from './dataset.ts';
import { readRawResults } from './results.ts';

/** Ids the spec asks for per question, where the conversation has that many turns. */
export const MIN_TURN_IDS = 25;

const LineSchema = z.object({
  questionId: z.string().min(1),
  turnIds: z.array(z.string()),
  latencyMs: z.number().min(0),
});

const MAX_PROBLEMS = 50;

/**
 * Check a results file against a dataset. Returns the problems found (empty
 * when the file is valid): every question answered exactly once and in
 * dataset order, ids are turn ids of that question's conversation, no
 * duplicate ids in a line, at least min(25, turns) ids per question, and
 * latencyMs a non-negative number.
 */
export async function checkResultsFile(dataset: Dataset, resultsPath: string): Promise<string[]> {
  const problems: string[] = [];
  const expected = dataset.conversations.flatMap((c) =>
    c.questions.map((q) => ({ id: q.id, turns: new Set(c.turns.map((t) => t.id)), conv: c.id })),
  );
  const byId = new Map(expected.map((e, i) => [e.id, { ...e, index: i }]));
  const answered = new Set<string>();
  let next = 0; // index in `expected` the next line should answer
  for (const line of await readRawResults(resultsPath)) {
    if ('error' in line) {
      problems.push(`line ${line.n}: not JSON (${line.error})`);
      continue;
    }
    const r = LineSchema.safeParse(line.value);
    if (!r.success) {
      const msg = r.error.issues
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ');
      problems.push(`line ${line.n}: ${msg}`);
      continue;
    }
    const { questionId, turnIds } = r.data;
    const q = byId.get(questionId);
    if (!q) {
      problems.push(`line ${line.n}: unknown question ${questionId}`);
      continue;
    }
    if (answered.has(questionId)) {
      problems.push(`line ${line.n}: question ${questionId} answered more than once`);
      continue;
    }
    answered.add(questionId);
    if (q.index !== next) {
      problems.push(
        `line ${line.n}: question ${questionId} out of dataset order (expected ${expected[next]?.id ?? 'end of file'})`,
      );
    }
    next = q.index + 1;
    const foreign = turnIds.filter((t) => !q.turns.has(t));
    if (foreign.length > 0) {
      problems.push(
        `line ${line.n}: ${questionId}: not turns of ${q.conv}: ${foreign.slice(0, 5).join(', ')}`,
      );
    }
    const dups = turnIds.filter((t, i) => turnIds.indexOf(t) !== i);
    if (dups.length > 0)
      problems.push(
        `line ${line.n}: ${questionId}: duplicate ids: ${[...new Set(dups)].join(', ')}`,
      );
    const need = Math.min(MIN_TURN_IDS, q.turns.size);
    if (turnIds.length < need) {
      problems.push(
        `line ${line.n}: ${questionId}: ${turnIds.length} ids, at least ${need} required`,
      );
    }
  }
  const missing = expected.filter((e) => !answered.has(e.id)).map((e) => e.id);
  if (missing.length > 0) {
    problems.push(
      `${missing.length} question(s) not answered: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', ...' : ''}`,
    );
  }
  // A file broken on every line would bury the summary; keep the report readable.
  return problems.length > MAX_PROBLEMS
    ? [
        ...problems.slice(0, MAX_PROBLEMS),
        `(${problems.length - MAX_PROBLEMS} more problems not listed)`,
      ]
    : problems;
}
