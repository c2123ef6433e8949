// `keepgraph recall` and `keepgraph why`: owner-scoped retrieval, each hit
// with its origin and authority; `why` adds each hit's derivation tree down
// to the episodes it grew from.
import { Option, type Command } from 'commander';
import { RECALL_RECIPE_NAMES, type RecallOptions } from '@keepgraph/core';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import { formatHit, formatLineage } from '../format.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';

interface RecallFlags {
  owner: string;
  query: string;
  k?: number;
  recipe?: RecallOptions['recipe'];
  session?: string;
  json?: boolean;
}

function recallOptions(f: RecallFlags): RecallOptions {
  return {
    ...(f.recipe ? { recipe: f.recipe } : {}),
    ...(f.k !== undefined ? { topK: f.k } : {}),
    ...(f.session ? { sessionId: f.session } : {}),
  };
}

function addRecallFlags(cmd: Command): Command {
  return cmd
    .requiredOption('--owner <id>', 'whose memories to search')
    .requiredOption('--query <text>', 'what to look for')
    .option('--k <n>', 'at most this many results', intOption(1, 100))
    .addOption(new Option('--recipe <name>', 'retrieval recipe').choices(RECALL_RECIPE_NAMES))
    .option('--session <id>', 'session the read is logged against')
    .option('--json', 'print the engine result as JSON');
}

export function registerRecall(program: Command, io: Io): void {
  addRecallFlags(
    runsUseCases(program.command('recall'), ['recall']).description(
      'find what is known about an owner for a query',
    ),
  ).action(async (f: RecallFlags, cmd: Command) => {
    await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
      const r = await engine.recall(caller, f.owner, f.query, recallOptions(f));
      if (f.json) return io.out(JSON.stringify(r, null, 2));
      if (r.results.length === 0) return io.out('no memories found');
      r.results.forEach((hit, i) => io.out(formatHit(hit, i + 1)));
    });
  });
}

export function registerWhy(program: Command, io: Io): void {
  addRecallFlags(
    runsUseCases(program.command('why'), ['why']).description(
      'recall, plus where each result came from (its derivation tree)',
    ),
  ).action(async (f: RecallFlags, cmd: Command) => {
    await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
      const r = await engine.why(caller, f.owner, f.query, recallOptions(f));
      if (f.json) return io.out(JSON.stringify(r, null, 2));
      if (r.results.length === 0) return io.out('no memories found');
      r.results.forEach((hit, i) => {
        io.out(formatHit(hit, i + 1));
        const graph = r.lineage[hit.memory.id];
        if (graph) for (const line of formatLineage(graph, hit.memory.id)) io.out(line);
      });
    });
  });
}
