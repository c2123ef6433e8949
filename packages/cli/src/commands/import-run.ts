// `keepgraph import` when it runs (import.ts registers it), and the import
// itself for other tools (the CLI's index exports importLines).
import { readFile } from 'node:fs/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import {
  addImportReport,
  checkOwner,
  emptyImportReport,
  type Caller,
  type Engine,
  type ImportReport,
} from '@keepgraph/core';
import { globalOptions, userPath, withRuntime } from '../context.ts';
import type { Io } from '../io.ts';

/**
 * What an import did, for the summary line and `--json`: the use-case's
 * reports added up, with the first failures only (for fixing the file).
 */
export type ImportSummary = Omit<ImportReport, 'stored'>;

const MAX_FAILURES_LISTED = 20;

/**
 * Import the lines through the engine's import use-case, `batchSize` lines a
 * call (so `onProgress` gets the number of lines done), adding the reports up.
 */
export async function importLines(
  engine: Engine,
  caller: Caller,
  ownerId: string,
  lines: readonly string[],
  batchSize: number,
  onProgress: (done: number) => void = () => {},
): Promise<ImportSummary> {
  const { stored: _stored, ...s }: ImportReport = emptyImportReport();
  for (let i = 0; i < lines.length; i += batchSize) {
    const r = await engine.importMemories(caller, ownerId, {
      lines: lines.slice(i, i + batchSize),
      firstLine: i + 1,
    });
    addImportReport(s, r, MAX_FAILURES_LISTED);
    onProgress(Math.min(lines.length, i + batchSize));
  }
  return s;
}

/** `imported N, refused M (by code: a=1, b=2)` */
export function formatImportSummary(s: ImportSummary): string {
  const codes = Object.entries(s.refusedByCode)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([c, n]) => `${c}=${n}`)
    .join(', ');
  return `imported ${s.imported}, refused ${s.refused}${codes ? ` (by code: ${codes})` : ''}`;
}

export interface ImportFlags {
  owner: string;
  in: string;
  batch: number;
  json?: boolean;
}

/** Read the file (or stdin) and import it for the owner, with a progress bar on a terminal. */
export async function runImport(io: Io, f: ImportFlags, cmd: Command): Promise<void> {
  const ownerId = checkOwner(f.owner);
  // Read (and fail on a missing file) before the model is loaded.
  const raw = f.in === '-' ? await readStdin() : await readFile(userPath(f.in), 'utf8');
  const lines = raw.split(/\r?\n/);
  await withRuntime(globalOptions(cmd), async ({ engine, caller }) => {
    const bar = io.stderrIsTTY
      ? new SingleBar({
          stream: io.stderr,
          format: 'importing [{bar}] {value}/{total} lines | {percentage}% | eta {eta}s',
          hideCursor: true,
          clearOnComplete: true,
        })
      : null;
    bar?.start(lines.length, 0);
    let s: ImportSummary;
    try {
      s = await importLines(engine, caller, ownerId, lines, f.batch, (done) => bar?.update(done));
    } finally {
      bar?.stop();
    }
    if (f.json) io.out(JSON.stringify(s, null, 2));
    else {
      for (const x of s.failures) io.err(`line ${x.line}: ${x.code}: ${x.message}`);
      if (s.refused > s.failures.length)
        io.err(`(${s.refused - s.failures.length} more failures not listed)`);
      if (s.skippedDerived > 0) {
        io.err(
          `warning: skipped ${s.skippedDerived} derived memories: their sources get new ids on import, ` +
            'so their derivedFrom links cannot be kept',
        );
      }
      io.out(formatImportSummary(s));
    }
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
