// `keepgraph forget` and `keepgraph revoke-source`: delete memories (by id,
// or every one naming a source) with everything derived from them, print
// the receipt, then prove it: verifyForgotten looks for the deleted ids and
// content hashes in every store, index and cache. `--dry-run` lists what
// would go and deletes nothing.
import type { Command } from 'commander';
import type { DeletionPreview } from '@keepgraph/core';
import type { DeletionReceipt } from '@keepgraph/core/ports';
import { globalOptions, runsUseCases, withRuntime, type LocalRuntime } from '../context.ts';
import { EXIT, CliExit } from '../exit.ts';
import { formatPreview, formatReceipt, formatVerification } from '../format.ts';
import type { Io } from '../io.ts';

interface ForgetFlags {
  owner: string;
  id: string[];
  dryRun?: boolean;
  json?: boolean;
}

interface RevokeFlags {
  owner: string;
  uri?: string;
  tool?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** Print the receipt, then prove it: exit 1 when a trace is left. */
async function printAndVerify(
  io: Io,
  { engine, caller }: Pick<LocalRuntime, 'engine' | 'caller'>,
  receipt: DeletionReceipt,
  json: boolean | undefined,
): Promise<void> {
  const check = await engine.verifyForgotten(caller, receipt.ownerId, {
    ids: receipt.deletedMemoryIds,
    contentHashes: receipt.deletedContentHashes,
  });
  if (json) {
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
}

/** A dry run: what would go, as JSON or one memory a line. */
function printPreview(io: Io, preview: DeletionPreview, json: boolean | undefined): void {
  if (json) io.out(JSON.stringify(preview, null, 2));
  else for (const line of formatPreview(preview)) io.out(line);
}

export function registerForget(program: Command, io: Io): void {
  runsUseCases(program.command('forget'), ['forget', 'verifyForgotten'])
    .description('delete memories and everything derived from them, then verify they are gone')
    .requiredOption('--owner <id>', 'owner of the memories')
    .requiredOption('--id <id...>', 'memory id to forget (repeatable)')
    .option('--dry-run', 'list what would go (with what grew out of it) and delete nothing')
    .option('--json', 'print the receipt and the verification as JSON')
    .action(async (f: ForgetFlags, cmd: Command) => {
      await withRuntime(globalOptions(cmd), async (rt) => {
        if (f.dryRun)
          return printPreview(
            io,
            await rt.engine.forget(rt.caller, f.owner, f.id, { dryRun: true }),
            f.json,
          );
        await printAndVerify(io, rt, await rt.engine.forget(rt.caller, f.owner, f.id), f.json);
      });
    });

  runsUseCases(program.command('revoke-source'), ['revokeSource', 'verifyForgotten'])
    .description(
      'delete every memory whose origin (own or inherited) names this URL, document or tool, and all derived from them, then verify they are gone',
    )
    .requiredOption('--owner <id>', 'owner of the memories')
    .option('--uri <uri>', 'the URL or document uri')
    .option('--tool <name>', 'the tool name')
    .option('--dry-run', 'list what would go and delete nothing')
    .option('--json', 'print the receipt and the verification as JSON')
    .action(async (f: RevokeFlags, cmd: Command) => {
      const source = {
        ...(f.uri !== undefined && { uri: f.uri }),
        ...(f.tool !== undefined && { tool: f.tool }),
      };
      await withRuntime(globalOptions(cmd), async (rt) => {
        if (f.dryRun)
          return printPreview(
            io,
            await rt.engine.revokeSource(rt.caller, f.owner, source, { dryRun: true }),
            f.json,
          );
        await printAndVerify(
          io,
          rt,
          await rt.engine.revokeSource(rt.caller, f.owner, source),
          f.json,
        );
      });
    });
}
