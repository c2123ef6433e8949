// `keepgraph forget`: delete memories with everything derived from them,
// print the receipt, then prove it: verifyForgotten looks for the deleted
// ids and content hashes in every store, index and cache.
import type { Command } from 'commander';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import { EXIT, CliExit } from '../exit.ts';
import { formatReceipt, formatVerification } from '../format.ts';
import type { Io } from '../io.ts';

interface ForgetFlags {
  owner: string;
  id: string[];
  json?: boolean;
}

export function registerForget(program: Command, io: Io): void {
  runsUseCases(program.command('forget'), ['forget', 'verifyForgotten'])
    .description('delete memories and everything derived from them, then verify they are gone')
    .requiredOption('--owner <id>', 'owner of the memories')
    .requiredOption('--id <id...>', 'memory id to forget (repeatable)')
    .option('--json', 'print the receipt and the verification as JSON')
    .action(async (f: ForgetFlags, cmd: Command) => {
      await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
        const receipt = await engine.forget(caller, f.owner, f.id);
        const check = await engine.verifyForgotten(caller, f.owner, {
          ids: receipt.deletedMemoryIds,
          contentHashes: receipt.deletedContentHashes,
        });
        if (f.json) {
          io.out(JSON.stringify({ receipt, verification: check }, null, 2));
        } else {
          io.out(formatReceipt(receipt));
          for (const line of formatVerification(
            check,
            receipt.deletedMemoryIds.length,
            receipt.deletedContentHashes.length,
          )) {
            io.out(line);
          }
        }
        // A deletion that cannot be proven is a failure, whatever the receipt says.
        if (!check.forgotten) throw new CliExit(EXIT.error);
      });
    });
}
