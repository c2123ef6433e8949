// `keepgraph import`: read JSONL memory inputs (or memories as `export`
// writes them) and store them for one owner through `rememberMany`, in
// batches, each item through the full write gate. Refusals are counted by
// code and do not stop the import.
import { readFile } from 'node:fs/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { checkOwner, type Caller, type Engine } from '@keepgraph/core';
import { globalOptions, runsUseCases, userPath, withRuntime } from '../context.ts';
import { parseImportLine } from '../import-input.ts';
import type { Io } from '../io.ts';
import { intOption } from '../parse-options.ts';

/** What an import did, for the summary line and `--json`. */
export interface ImportSummary {
  lines: number;
  imported: number;
  refused: number;
  refusedByCode: Record<string, number>;
  /** Exported derived memories left out: their sources' ids are not kept. */
  skippedDerived: number;
  /** First failures with their line numbers (1-based), for fixing the file. */
  failures: { line: number; code: string; message: string }[];
}

const MAX_FAILURES_LISTED = 20;

/** Store the lines' inputs in batches; `onProgress` gets the number of lines done. */
export async function importLines(
  engine: Engine,
  caller: Caller,
  ownerId: string,
  lines: readonly { n: number; text: string }[],
  batchSize: number,
  onProgress: (done: number) => void = () => {},
): Promise<ImportSummary> {
  const s: ImportSummary = {
    lines: lines.length,
    imported: 0,
    refused: 0,
    refusedByCode: {},
    skippedDerived: 0,
    failures: [],
  };
  const fail = (line: number, code: string, message: string) => {
    s.refused++;
    s.refusedByCode[code] = (s.refusedByCode[code] ?? 0) + 1;
    if (s.failures.length < MAX_FAILURES_LISTED) s.failures.push({ line, code, message });
  };
  let done = 0;
  for (let i = 0; i < lines.length; i += batchSize) {
    const chunk = lines.slice(i, i + batchSize);
    const inputs: unknown[] = [];
    const lineOf: number[] = [];
    for (const l of chunk) {
      const parsed = parseImportLine(l.text);
      if (parsed.type === 'skipped_derived') s.skippedDerived++;
      else if (parsed.type === 'invalid') fail(l.n, parsed.code, parsed.message);
      else {
        inputs.push(parsed.input);
        lineOf.push(l.n);
      }
    }
    if (inputs.length > 0) {
      const r = await engine.rememberMany(caller, ownerId, inputs);
      s.imported += r.stored.length;
      for (const f of r.failed) fail(lineOf[f.index] ?? 0, f.code, f.message);
    }
    done += chunk.length;
    onProgress(done);
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

export function registerImport(program: Command, io: Io): void {
  runsUseCases(program.command('import'), ['rememberMany'])
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
    .action(
      async (f: { owner: string; in: string; batch: number; json?: boolean }, cmd: Command) => {
        const ownerId = checkOwner(f.owner);
        // Read (and fail on a missing file) before the model is loaded.
        const raw = f.in === '-' ? await readStdin() : await readFile(userPath(f.in), 'utf8');
        const lines = raw
          .split(/\r?\n/)
          .map((text, i) => ({ n: i + 1, text }))
          .filter((l) => l.text.trim() !== '');
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
            s = await importLines(engine, caller, ownerId, lines, f.batch, (done) =>
              bar?.update(done),
            );
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
      },
    );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
