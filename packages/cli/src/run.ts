// Run the program once and turn every outcome into an exit code. The one
// place where commander's own exits, engine errors and CLI failures meet.
import { CommanderError } from 'commander';
import { EXIT, reportError, type ExitCode } from './exit.ts';
import { processIo, type Io } from './io.ts';
import { buildProgram } from './program.ts';

/**
 * Parse `argv` (as in `process.argv`: node, script, args...) and run the
 * command. Resolves to the exit code; never calls `process.exit`.
 */
export async function runCli(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv]);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Commander already printed its message (usage error) or the help/version.
      return e.exitCode === 0 ? EXIT.ok : EXIT.error;
    }
    return reportError(e, io) satisfies ExitCode;
  }
}
