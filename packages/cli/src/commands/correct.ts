// `keepgraph correct`: write a corrected version of a memory. It supersedes
// the old one (or, from a lower authority, is kept beside it as a conflict);
// what was derived from the old version is re-derived from the new one.
import { Option, type Command } from 'commander';
import { AUTHORITIES, CORRECTION_REASONS, type CorrectionInput } from '@keepgraph/core/registry';
import { globalOptions, runsUseCases, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';
import { inFlags } from './remember.ts';

interface CorrectFlags {
  owner: string;
  id: string;
  text: string;
  reason: CorrectionInput['reason'];
  authority?: CorrectionInput['authority'];
  ttl?: number;
  tag?: string[];
  json?: boolean;
}

export function registerCorrect(program: Command, io: Io): void {
  runsUseCases(program.command('correct'), ['correct'])
    .description(
      'correct a memory: a new version supersedes it; what was derived from it is re-derived',
    )
    .requiredOption('--owner <id>', 'owner of the memory')
    .requiredOption('--id <id>', 'the memory to correct')
    .requiredOption('--text <text>', 'the corrected text')
    .addOption(
      new Option('--reason <reason>', 'why (recorded in the audit log)')
        .choices(CORRECTION_REASONS)
        .default('incorrect'),
    )
    .addOption(
      new Option(
        '--authority <authority>',
        "the correction's authority (at most what --role allows)",
      ).choices(AUTHORITIES),
    )
    .option('--ttl <seconds>', 'lifetime in seconds (within the policy bounds)', intOption(1))
    .option('--tag <tag...>', "tags (the old version's unless given)")
    .option('--json', 'print the result as JSON')
    .action(async (f: CorrectFlags, cmd: Command) => {
      const correction: CorrectionInput = {
        text: f.text,
        reason: f.reason,
        ...(f.authority && { authority: f.authority }),
        ...(f.ttl !== undefined && { ttlSeconds: f.ttl }),
        ...(f.tag && { tags: f.tag }),
      };
      await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
        const r = await engine.correct(caller, f.owner, f.id, correction).catch((e: unknown) => {
          throw inFlags(e);
        });
        if (f.json) {
          io.out(JSON.stringify(r, null, 2));
          return;
        }
        io.out(r.memory.id);
        if (r.superseded) io.err(`note: supersedes ${r.corrected}`);
        else io.err(`note: kept as a conflicting claim beside ${r.corrected} (higher authority)`);
        if (r.rederiving.length > 0)
          io.err(
            `note: ${r.rederiving.length} derived memories are re-derived from the correction`,
          );
      });
    });
}
