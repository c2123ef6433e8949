// `keepgraph session show|forget`: one session of an owner. `show` prints its
// messages; `forget` deletes its messages, the memories observed in it and
// everything derived from them, after `--dry-run` has listed what would go.
import type { Command } from 'commander';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import { formatReceipt } from '../format.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';

interface SessionFlags {
  owner: string;
  session: string;
  json?: boolean;
}

export function registerSession(program: Command, io: Io): void {
  const session = program
    .command('session')
    .description('one session of an owner: read its messages, or forget it with what it produced');

  runsUseCases(session.command('show'), ['readSession'])
    .description("the session's unexpired messages, oldest first")
    .requiredOption('--owner <id>', 'owner of the session')
    .requiredOption('--session <id>', 'the session id')
    .option('--limit <n>', 'the newest this many', intOption(1, 10_000))
    .option('--json', 'print the messages as JSON')
    .action(async (f: SessionFlags & { limit?: number }, cmd: Command) => {
      await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
        const r = await engine.readSession(caller, f.owner, f.session, {
          ...(f.limit !== undefined && { limit: f.limit }),
        });
        if (f.json) return io.out(JSON.stringify(r, null, 2));
        for (const m of r.messages) {
          const by = m.writer ? `${m.writer.role} ${m.writer.principal}` : 'unknown writer';
          io.out(`#${m.seq}  ${m.at}  ${m.role} (by ${by}): ${m.text}`);
        }
      });
    });

  runsUseCases(session.command('forget'), ['forgetSession'])
    .description(
      'delete the session: its messages, the memories observed in it and all derived from them',
    )
    .requiredOption('--owner <id>', 'owner of the session')
    .requiredOption('--session <id>', 'the session id')
    .option('--dry-run', 'list what would go and delete nothing')
    .option('--json', 'print the result as JSON')
    .action(async (f: SessionFlags & { dryRun?: boolean }, cmd: Command) => {
      await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
        const r = await engine.forgetSession(caller, f.owner, f.session, {
          dryRun: f.dryRun === true,
        });
        if (f.json) return io.out(JSON.stringify(r, null, 2));
        const what = `${r.memoryIds.length} memories (${r.observed.length} observed in the session, the rest derived from them) and ${r.sessionMessages} messages`;
        if (r.dryRun) {
          io.out(`would delete ${what}:`);
          for (const id of r.memoryIds) io.out(`  ${id}`);
          return;
        }
        io.out(`deleted ${what}`);
        if (r.receipt) io.out(formatReceipt(r.receipt));
      });
    });
}
