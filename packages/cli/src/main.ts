#!/usr/bin/env -S node --import tsx
// Entry point of the `keepgraph` command (`pnpm -s keepgraph <args>` from the
// repository root). Sets the exit code rather than calling process.exit, so
// stdout is flushed before the process ends.
import { runCli } from './run.ts';

// `keepgraph export | head` closes the pipe early: that is the reader's
// choice, not a failure, so end quietly as other Unix tools do.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

process.exitCode = await runCli(process.argv);
