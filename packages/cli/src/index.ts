// Public surface of @keepgraph/cli: the program, the runner and the pure
// helpers other tools (benchmarks, scripts) may reuse. Re-exports only.
export { buildProgram } from './program.ts';
export { runCli } from './run.ts';
export { EXIT, CliExit, reportError, type ExitCode } from './exit.ts';
export { processIo, type Io } from './io.ts';
export { formatImportSummary, importLines, type ImportSummary } from './commands/import-run.ts';
export { exportMemories } from './commands/export.ts';
export { sweepOnce } from './commands/operate.ts';
