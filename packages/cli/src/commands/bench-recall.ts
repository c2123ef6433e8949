// `keepgraph bench recall`: the retrieval benchmark of the evaluation spec
// (memory-retrieval-eval/v1). Ingests each conversation of a dataset under a
// fresh owner through the normal write path, asks its questions, writes the
// per-question results file the spec defines, checks it, and prints
// recall@k / hit@k per category, latency and what the policy refused.
import { Option, type Command } from 'commander';
import type { Caller, Engine } from '@keepgraph/core';
import { globalOptions, userPath, withRuntime } from '../context.ts';
import { CliExit, EXIT } from '../exit.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';
import { checkResultsFile, MIN_TURN_IDS } from '../retrieval-eval/check.ts';
import { limitConversations, loadDataset, type Dataset } from '../retrieval-eval/dataset.ts';
import { writeResults, type ResultLine } from '../retrieval-eval/results.ts';
import {
  answerQuestions,
  ingestConversation,
  RETRIEVERS,
  type IngestSummary,
  type Retriever,
} from '../retrieval-eval/run-eval.ts';
import { formatMetricsTable, scoreResults, type RecallMetrics } from '../retrieval-eval/score.ts';

/** Flags of `bench recall`. */
export interface BenchRecallFlags {
  dataset: string;
  results?: string;
  k: number;
  limitConversations?: number;
  baseline: Retriever;
  store?: 'sqlite' | 'neo4j';
  json?: boolean;
  check?: string;
}

/** What a run reports: the scores plus what ingestion stored and refused. */
export interface BenchRecallReport extends RecallMetrics {
  dataset: string;
  baseline: Retriever;
  /** Results requested per question (topK / search limit). */
  k: number;
  conversations: number;
  /** Questions whose retrieved turns were fewer than k, padded per padWithUnretrieved. */
  paddedQuestions: number;
  ingest: IngestSummary;
}

/** The engine's recall serves at most this many results. */
const MAX_TOP_K = 100;

function addIngest(total: IngestSummary, s: IngestSummary): void {
  total.turns += s.turns;
  total.stored += s.stored;
  total.refused += s.refused;
  for (const [code, n] of Object.entries(s.refusedByCode))
    total.refusedByCode[code] = (total.refusedByCode[code] ?? 0) + n;
}

function formatCodes(byCode: Record<string, number>): string {
  const codes = Object.entries(byCode)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([c, n]) => `${c}=${n}`);
  return codes.length ? ` (${codes.join(', ')})` : '';
}

/** Print the check's outcome; throws CliExit(1) when the file fails it. */
function reportCheck(io: Io, dataset: Dataset, file: string, problems: readonly string[]): void {
  if (problems.length > 0) {
    io.err(`check failed: ${file}`);
    for (const p of problems) io.err(`  ${p}`);
    throw new CliExit(EXIT.error);
  }
  const n = dataset.conversations.reduce((a, c) => a + c.questions.length, 0);
  io.err(`check ok: ${file} answers all ${n} questions`);
}

/** Ingest, answer and write the results file; returns the report (the caller checks the file). */
export async function runBenchRecall(
  io: Io,
  dataset: Dataset,
  flags: BenchRecallFlags,
  rt: { engine: Engine; caller: Caller },
  resultsPath: string,
): Promise<BenchRecallReport> {
  // The spec wants at least 25 ids per question, so never ask for fewer.
  const k = Math.min(MAX_TOP_K, Math.max(flags.k, MIN_TURN_IDS));
  const ingest: IngestSummary = { turns: 0, stored: 0, refused: 0, refusedByCode: {} };
  const lines: ResultLine[] = [];
  let padded = 0;
  for (const conv of dataset.conversations) {
    const ingested = await ingestConversation(rt.engine, rt.caller, conv);
    addIngest(ingest, ingested.summary);
    const s = ingested.summary;
    io.err(
      `${conv.id}: ingested ${s.stored} of ${s.turns} turns, refused ${s.refused}${formatCodes(s.refusedByCode)}`,
    );
    const answered = await answerQuestions(rt.engine, rt.caller, conv, ingested, k, flags.baseline);
    lines.push(...answered.lines);
    padded += answered.padded;
    io.err(
      `${conv.id}: answered ${answered.lines.length} questions` +
        (answered.padded ? `, ${answered.padded} padded to ${k} with unretrieved turns` : ''),
    );
  }
  await writeResults(resultsPath, lines);
  return {
    dataset: dataset.name,
    baseline: flags.baseline,
    k,
    conversations: dataset.conversations.length,
    paddedQuestions: padded,
    ingest,
    ...scoreResults(dataset, lines),
  };
}

/** Human-readable report lines. */
export function formatReport(r: BenchRecallReport): string[] {
  return [
    `${r.dataset}: ${r.baseline}, ${r.conversations} conversation(s), top ${r.k}; recall@k / hit@k in % ` +
      `(questions with evidence: ${r.overall.questions}${r.unscoredQuestions ? `, ${r.unscoredQuestions} without evidence skipped` : ''})`,
    ...formatMetricsTable(r),
    `latency p50 ${r.latencyMs.p50} ms, p95 ${r.latencyMs.p95} ms`,
    ...(r.paddedQuestions
      ? [
          `${r.paddedQuestions} question(s) found fewer than ${r.k} turns: the rest of the list is unretrieved turns in write order`,
        ]
      : []),
    `ingest: ${r.ingest.stored} of ${r.ingest.turns} turns stored, refused ${r.ingest.refused}${formatCodes(r.ingest.refusedByCode)}`,
  ];
}

/** Register `keepgraph bench recall`. */
export function registerBench(program: Command, io: Io): void {
  const bench = program.command('bench').description('benchmarks over the local engine');
  bench
    .command('recall')
    .description('retrieval benchmark on a memory-retrieval-eval/v1 dataset')
    .requiredOption('--dataset <file>', 'dataset (memory-retrieval-eval/v1 JSON)')
    .option('--results <file>', 'where to write the per-question results (JSONL)')
    .option(
      '--k <n>',
      `results per question (at least ${MIN_TURN_IDS} are always requested)`,
      intOption(1, MAX_TOP_K),
      MIN_TURN_IDS,
    )
    .option('--limit-conversations <n>', 'only the first n conversations', intOption(1))
    .addOption(
      new Option('--baseline <name>', 'what answers: the engine, or one store retriever alone')
        .choices(RETRIEVERS)
        .default('engine'),
    )
    .addOption(
      new Option(
        '--store <kind>',
        'store to ingest into (default KEEPGRAPH_STORE or sqlite; neo4j needs NEO4J_URI)',
      ).choices(['sqlite', 'neo4j']),
    )
    .option('--json', 'print the metrics as JSON')
    .option('--check <file>', 'only check an existing results file against the dataset')
    .action(async (f: BenchRecallFlags, cmd: Command) => {
      // Validate the dataset before the model is loaded.
      const dataset = limitConversations(
        await loadDataset(userPath(f.dataset)),
        f.limitConversations,
      );
      if (f.check) {
        const file = userPath(f.check);
        return reportCheck(io, dataset, file, await checkResultsFile(dataset, file));
      }
      if (!f.results) {
        io.err('error: --results <file> is required unless --check is given');
        throw new CliExit(EXIT.error);
      }
      const resultsPath = userPath(f.results);
      const g = globalOptions(cmd);
      await withRuntime(
        g,
        async ({ engine }) => {
          // Turns are the user's own words: written as role user, authority user.
          const caller: Caller = { role: 'user', principal: g.principal };
          const report = await runBenchRecall(io, dataset, f, { engine, caller }, resultsPath);
          if (f.json) io.out(JSON.stringify(report, null, 2));
          else for (const line of formatReport(report)) io.out(line);
          // Scores first, then the check: a short list (a lexical baseline
          // matching fewer than 25 turns) is worth seeing scored and flagged.
          reportCheck(io, dataset, resultsPath, await checkResultsFile(dataset, resultsPath));
        },
        f.store ? { store: f.store } : {},
      );
    });
}
