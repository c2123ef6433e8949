// The `keepgraph` command tree: global options, then one register function
// per command family. Building the program is side-effect free, so tests and
// other tools can run it against their own Io.
import { Command, Option } from 'commander';
import { ROLES } from '@keepgraph/core/registry';
import { MODEL_IDS } from '@keepgraph/embedder/model-ids';
import { registerBackup, registerRestore } from './commands/backup.ts';
import { registerBench } from './commands/bench-recall.ts';
import { registerCorrect } from './commands/correct.ts';
import { registerExport } from './commands/export.ts';
import { registerExposed } from './commands/exposed.ts';
import { registerList, registerSessions } from './commands/list.ts';
import { registerMcp } from './commands/mcp.ts';
import { registerModels } from './commands/models.ts';
import { registerForget } from './commands/forget.ts';
import { registerImport } from './commands/import.ts';
import { registerKeys } from './commands/keys.ts';
import { registerAudit, registerExpire, registerKpis, registerOwners } from './commands/operate.ts';
import { registerReads } from './commands/reads.ts';
import { registerRecall, registerWhy } from './commands/recall.ts';
import { registerRemember } from './commands/remember.ts';
import { registerSession } from './commands/session.ts';
import { registerStart } from './commands/start.ts';
import { registerWorker } from './commands/worker.ts';
import { DEFAULT_DATA_DIR } from './context.ts';
import type { Io } from './io.ts';
import { versionReport } from '@keepgraph/runtime/version';

const HELP_AFTER = `
Roles:
  Local commands run in this process on the data directory, as --role
  (default user): whoever runs them on this machine chooses their role.
  audit, kpis, expire and keys run as operator unless --role is given,
  and backup and restore always do, since whoever holds the data
  directory is its operator. The HTTP server
  (keepgraph start) takes the role and owners of each request from its
  credential (Authorization: Bearer <API key or JWT>), never from the
  request; its first start over an empty store makes an operator key and
  writes it to DATA_DIR/operator.key.

Exit codes:
  0 ok, 1 error (invalid input, engine error, broken audit chain,
  deletion not proven), 2 write refused by the policy (refused_*).
  Set KEEPGRAPH_DEBUG=1 for stack traces.`;

/**
 * Commands that run no use-case: they start the long-running processes
 * (the HTTP server, a BullMQ worker) whose requests and jobs do, or work
 * on the whole store below the engine as its operator (backup, restore),
 * or install the embedding models (models).
 * Every other command declares its use-cases (runsUseCases), which a test
 * checks.
 */
export const NOT_USE_CASE_COMMANDS = [
  'start',
  'worker',
  'backup',
  'restore',
  'models list',
  'models fetch',
] as const;

/** Build the `keepgraph` program. Errors surface as thrown exceptions (exitOverride). */
export function buildProgram(io: Io): Command {
  const program = new Command('keepgraph')
    .description('KeepGraph: provenance-first graph memory for LLM agents')
    .version(versionReport())
    .addOption(
      new Option('--data <dir>', 'local data directory')
        .env('KEEPGRAPH_DATA_DIR')
        .default(DEFAULT_DATA_DIR),
    )
    .addOption(
      new Option('--policy <file>', 'policy YAML (default: the built-in policy)').env(
        'KEEPGRAPH_POLICY',
      ),
    )
    .addOption(
      new Option('--model <id>', 'embedding model').choices(MODEL_IDS).env('KEEPGRAPH_MODEL'),
    )
    .addOption(
      new Option('--role <role>', 'your role for local commands').choices(ROLES).default('user'),
    )
    .option('--principal <id>', 'principal written into origins and audit events', 'cli')
    .addHelpText('after', HELP_AFTER)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });

  // Subcommands copy exitOverride and the output settings when created, so
  // those are set above, before any command is registered.
  registerStart(program, io);
  registerRemember(program, io);
  registerCorrect(program, io);
  registerRecall(program, io);
  registerWhy(program, io);
  registerForget(program, io);
  registerExport(program, io);
  registerList(program, io);
  registerSessions(program, io);
  registerReads(program, io);
  registerSession(program, io);
  registerImport(program, io);
  registerAudit(program, io);
  registerKpis(program, io);
  registerOwners(program, io);
  registerKeys(program, io);
  registerExpire(program, io);
  // Derived from the registry rows that declare a command.
  registerExposed(program, io);
  registerBackup(program, io);
  registerRestore(program, io);
  registerWorker(program, io);
  registerMcp(program, io);
  registerModels(program, io);
  registerBench(program, io);

  return program;
}
