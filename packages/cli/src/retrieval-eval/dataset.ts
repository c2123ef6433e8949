// The dataset side of the retrieval evaluation format
// (memory-retrieval-eval/v1, /work/shared/specs/retrieval-eval-format.md):
// one JSON file of conversations, their turns and the questions asked of them.
// Parsed with zod so a malformed file fails up front with every problem listed,
// before the model is loaded and minutes of ingestion are spent.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { KeepGraphError } from '@keepgraph/core';

/** The format tag a dataset file must carry. */
export const DATASET_FORMAT = 'memory-retrieval-eval/v1';

const TurnSchema = z.object({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  speaker: z.string().min(1),
  text: z.string(),
  // The spec allows the timestamp to be absent; the engine then uses now.
  timestamp: z.iso.datetime({ offset: true }).optional(),
});

const QuestionSchema = z.object({
  id: z.string().min(1),
  question: z.string().min(1),
  evidence: z.array(z.string().min(1)),
  category: z.string(),
  // When the question is asked (LongMemEval): its relative dates are read against it.
  askedAt: z.iso.datetime({ offset: true }).optional(),
});

const ConversationSchema = z
  .object({
    id: z.string().min(1),
    turns: z.array(TurnSchema),
    questions: z.array(QuestionSchema),
  })
  .superRefine((c, ctx) => {
    // Turn ids are what results name: two turns with one id could not be told apart.
    const seen = new Set<string>();
    c.turns.forEach((t, i) => {
      if (seen.has(t.id))
        ctx.addIssue({
          code: 'custom',
          path: ['turns', i, 'id'],
          message: `duplicate turn id ${t.id}`,
        });
      seen.add(t.id);
    });
  });

/** Schema of a whole dataset file. */
export const DatasetSchema = z
  .object({
    format: z.literal(DATASET_FORMAT),
    name: z.string().min(1),
    conversations: z.array(ConversationSchema),
  })
  .superRefine((d, ctx) => {
    // Results are keyed by question id across the whole file.
    const seen = new Set<string>();
    d.conversations.forEach((c, ci) =>
      c.questions.forEach((q, qi) => {
        if (seen.has(q.id)) {
          ctx.addIssue({
            code: 'custom',
            path: ['conversations', ci, 'questions', qi, 'id'],
            message: `duplicate question id ${q.id}`,
          });
        }
        seen.add(q.id);
      }),
    );
  });

/** A parsed dataset. */
export type Dataset = z.output<typeof DatasetSchema>;
/** One conversation: one owner's history and the questions asked of it. */
export type Conversation = Dataset['conversations'][number];
/** One turn of a conversation; it becomes one episode. */
export type Turn = Conversation['turns'][number];
/** One question with the turn ids that answer it. */
export type Question = Conversation['questions'][number];

const MAX_ISSUES_SHOWN = 10;

/** Validate an already-parsed JSON value; throws `invalid_input` listing the problems. */
export function parseDataset(value: unknown, source = 'dataset'): Dataset {
  const r = DatasetSchema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  const more =
    issues.length > MAX_ISSUES_SHOWN ? `; and ${issues.length - MAX_ISSUES_SHOWN} more` : '';
  throw new KeepGraphError(
    'invalid_input',
    `${source} is not a valid ${DATASET_FORMAT} file: ${issues.slice(0, MAX_ISSUES_SHOWN).join('; ')}${more}`,
  );
}

/** Read and validate a dataset file. */
export async function loadDataset(file: string): Promise<Dataset> {
  const raw = await readFile(file, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new KeepGraphError('invalid_input', `${file} is not JSON: ${(e as Error).message}`);
  }
  return parseDataset(json, file);
}

/** The first `n` conversations (all when n is undefined). */
export function limitConversations(d: Dataset, n: number | undefined): Dataset {
  return n === undefined ? d : { ...d, conversations: d.conversations.slice(0, n) };
}
