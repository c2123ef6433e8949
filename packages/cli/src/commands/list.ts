// `keepgraph list`: one page of an owner's memories with filters, through
// the engine's list use-case (the same as GET /v1/owners/:o/memories).
import type { Command } from 'commander';
import type { MemoryFilter } from '@keepgraph/core';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import { formatOrigin, oneLine } from '../format.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';
import { addFilterFlags, filterFrom, type FilterFlags } from './filter-flags.ts';

interface ListFlags extends FilterFlags {
  owner: string;
  session?: string;
  includeSuperseded?: boolean;
  after?: string;
  limit: number;
  json?: boolean;
}

export function registerList(program: Command, io: Io): void {
  addFilterFlags(
    runsUseCases(program.command('list'), ['listMemories'])
      .description("one page of an owner's memories, with filters (all must hold)")
      .requiredOption('--owner <id>', 'owner to list'),
    '--session',
  )
    .option('--include-superseded', 'also superseded versions (operator or analyst)')
    .option('--after <id>', 'the next of the previous page')
    .option('--limit <n>', 'at most this many memories', intOption(1, 500), 100)
    .option('--json', 'print the page as JSON')
    .action(async (f: ListFlags, cmd: Command) => {
      const defined: MemoryFilter = {
        ...filterFrom(f, '--session'),
        ...(f.includeSuperseded && { includeSuperseded: true }),
      };
      await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
        const page = await engine.listMemories(caller, f.owner, {
          filter: defined,
          limit: f.limit,
          ...(f.after !== undefined && { after: f.after }),
        });
        if (f.json) return io.out(JSON.stringify(page, null, 2));
        for (const m of page.memories)
          io.out(
            `${m.id}  ${m.kind}  ${m.authority}  ${oneLine(m.text, 100)}  [${formatOrigin(m.origin)}]`,
          );
        io.err(
          `${page.memories.length} memories${page.next ? `; next page: --after ${page.next}` : ''}`,
        );
      });
    });
}

export function registerSessions(program: Command, io: Io): void {
  runsUseCases(program.command('sessions'), ['listSessions'])
    .description("an owner's sessions with unexpired messages or memories, latest first")
    .requiredOption('--owner <id>', 'owner whose sessions to list')
    .option('--limit <n>', 'at most this many sessions', intOption(1, 1000), 100)
    .option('--json', 'print the sessions as JSON')
    .action(async (f: { owner: string; limit: number; json?: boolean }, cmd: Command) => {
      await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
        const r = await engine.listSessions(caller, f.owner, { limit: f.limit });
        if (f.json) return io.out(JSON.stringify(r, null, 2));
        if (r.sessions.length === 0) return io.out('no sessions');
        for (const s of r.sessions)
          io.out(
            `${s.sessionId}  ${s.messages} messages  ${s.memories} memories  ${s.firstAt} .. ${s.lastAt}`,
          );
      });
    });
}
