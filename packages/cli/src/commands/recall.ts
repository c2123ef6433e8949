// `keepgraph recall` and `keepgraph why`: owner-scoped retrieval, each hit
// with its origin and authority; `why` adds each hit's derivation tree down
// to the episodes it grew from.
import { Option, type Command } from 'commander';
import type { WhyResult } from '@keepgraph/core';
import { RECALL_RECIPE_NAMES, type RecallOptions } from '@keepgraph/core/registry';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import { formatHit, formatLineage } from '../format.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';
import { addFilterFlags, filterFrom, type FilterFlags } from './filter-flags.ts';

interface RecallFlags extends FilterFlags {
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

function withFilter(f: RecallFlags): RecallOptions {
  const filter = filterFrom(f, '--from-session');
  return { ...recallOptions(f), ...(Object.keys(filter).length > 0 && { filter }) };
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

function addRecallAndFilterFlags(cmd: Command): Command {
  return addFilterFlags(addRecallFlags(cmd), '--from-session');
}

/** `recall` and `why` share flags and output; `why` adds each hit's derivation tree. */
function registerRecallCommand(
  program: Command,
  io: Io,
  name: 'recall' | 'why',
  description: string,
): void {
  addRecallAndFilterFlags(
    runsUseCases(program.command(name), [name]).description(description),
  ).action(async (f: RecallFlags, cmd: Command) => {
    await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
      const r = await engine[name](caller, f.owner, f.query, withFilter(f));
      if (f.json) return io.out(JSON.stringify(r, null, 2));
      if (r.results.length === 0) return io.out('no memories found');
      const lineage: WhyResult['lineage'] = 'lineage' in r ? (r as WhyResult).lineage : {};
      r.results.forEach((hit, i) => {
        io.out(formatHit(hit, i + 1));
        const graph = lineage[hit.memory.id];
        if (graph) for (const line of formatLineage(graph, hit.memory.id)) io.out(line);
      });
    });
  });
}

export function registerRecall(program: Command, io: Io): void {
  registerRecallCommand(program, io, 'recall', 'find what is known about an owner for a query');
}

export function registerWhy(program: Command, io: Io): void {
  registerRecallCommand(
    program,
    io,
    'why',
    'recall, plus where each result came from (its derivation tree)',
  );
}
