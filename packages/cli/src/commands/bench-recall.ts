// `keepgraph bench recall`: the retrieval benchmark of the evaluation spec
// (memory-retrieval-eval/v1). Ingests each conversation of a dataset under a
// fresh owner through the normal write path, asks its questions, writes the
// per-question results file the spec defines, checks it, and prints
// recall@k / hit@k per category, latency and what the policy refused.
import { Option, type Command } from 'commander';
import { STORE_KINDS } from '@keepgraph/runtime/store-kinds';
import { runsUseCases } from '../context.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';
import { MIN_TURN_IDS } from '../retrieval-eval/check.ts';
import { MAX_TOP_K, RETRIEVERS } from '../retrieval-eval/run-eval.ts';
import type { BenchRecallFlags } from './bench-recall-run.ts';

/** Register `keepgraph bench recall`. */
export function registerBench(program: Command, io: Io): void {
  const bench = program.command('bench').description('benchmarks over the local engine');
  runsUseCases(bench.command('recall'), ['rememberMany', 'recall', 'lineage'])
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
      ).choices(STORE_KINDS),
    )
    .option(
      '--consolidate',
      "run each owner's background jobs to idle before asking (as `keepgraph start` does); reports raw and consolidated side by side",
    )
    .option(
      '--raw-results <file>',
      'with --consolidate: where the raw results go (default: beside --results, .raw.jsonl)',
    )
    .option('--json', 'print the metrics as JSON')
    .option('--check <file>', 'only check an existing results file against the dataset')
    .action(async (f: BenchRecallFlags, cmd: Command) => {
      // The benchmark (the dataset's schema, the engine, consolidation) loads when it runs.
      const { runBenchCommand } = await import('./bench-recall-run.ts');
      await runBenchCommand(io, f, cmd);
    });
}
