// `keepgraph import`: read JSONL memory inputs (or memories as `export`
// writes them) and store them for one owner through `rememberMany`, in
// batches, each item through the full write gate. Refusals are counted by
// code and do not stop the import.
import type { Command } from 'commander';
import { runsUseCases } from '../context.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';
import type { ImportFlags } from './import-run.ts';

export function registerImport(program: Command, io: Io): void {
  runsUseCases(program.command('import'), ['importMemories'])
    .description(
      'store JSONL memory inputs (or exported memories) for an owner; exported derived memories are skipped',
    )
    .requiredOption('--owner <id>', 'owner to import into')
    .requiredOption('--in <file>', "JSONL file to read ('-' for stdin)")
    .option('--batch <n>', 'memories per write (and per embedding batch)', intOption(1, 1000), 64)
    .option('--json', 'print the summary as JSON')
    .addHelpText(
      'after',
      `
Each line is a memory input (what remember takes, as JSON) or a memory as
\`keepgraph export\` writes it. Exported memories keep kind, text, origin
(writtenBy becomes the importing --principal), authority, key, tags,
confidence, sensitivity, about and relations; ids, timestamps and expiry are
assigned afresh under the current policy. Exported memories derived from
others (derivedFrom) are skipped and counted: their sources get new ids, so
the links cannot be kept. Refused lines are counted by code and the import
goes on; the exit code is 0 unless the import itself fails.`,
    )
    .action(async (f: ImportFlags, cmd: Command) => {
      // The import (the engine's use-case, the progress bar) loads when it runs.
      const { runImport } = await import('./import-run.ts');
      await runImport(io, f, cmd);
    });
}
