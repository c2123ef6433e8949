// `keepgraph reads`: the read log of an owner, newest first: which recalls
// served which memories, to whom, in which session (its keyed hash), when.
// With --memory, one memory's blast radius: every read that served it.
import type { Command } from 'commander';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import { formatRead } from '../format.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';

interface ReadsFlags {
  owner: string;
  memory?: string;
  limit: number;
  before?: string;
  json?: boolean;
}

export function registerReads(program: Command, io: Io): void {
  runsUseCases(program.command('reads'), ['readLog'])
    .description("an owner's read log, newest first: which reads served which memories, to whom")
    .requiredOption('--owner <id>', 'owner whose reads to list')
    .option('--memory <id>', 'only the reads that served this memory')
    .option('--limit <n>', 'at most this many reads', intOption(1, 1000), 100)
    .option('--before <time>', 'only reads before this ISO time')
    .option('--json', 'print the reads as JSON')
    .action(async (f: ReadsFlags, cmd: Command) => {
      await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
        const r = await engine.readLog(caller, f.owner, {
          limit: f.limit,
          ...(f.memory !== undefined && { memoryId: f.memory }),
          ...(f.before !== undefined && { before: f.before }),
        });
        if (f.json) return io.out(JSON.stringify(r, null, 2));
        if (r.reads.length === 0) return io.out('no reads');
        for (const read of r.reads) io.out(formatRead(read));
      });
    });
}
