// Import: JSONL lines for one owner, each a memory input (what remember
// takes) or a memory as export writes it, through the same gate as any
// write, with a report per line. The CLI's `import` and POST …/import are
// both clients of this one use-case; the CLI sends a file in chunks (with
// `firstLine`) so it can show progress, and adds the reports up.
import { z } from 'zod';
import { parseImportLine } from '../domain/import-input.ts';
import type { Caller, EngineDeps } from '../services/deps.ts';
import type { ParsedArgs } from './define.ts';
import type { ImportArgs } from './import-args.ts';
import { rememberMany } from './remember.ts';

/** Lines written per batch (one embedding batch each). */
const BATCH = 64;

/** What an import did. Blank lines count in the numbering, not in `lines`. */
export const ImportReportSchema = z.object({
  lines: z.number().int().describe('Non-blank lines read'),
  imported: z.number().int(),
  refused: z.number().int(),
  refusedByCode: z.record(z.string(), z.number().int()),
  /** Exported derived memories left out: their sources' ids are not kept. */
  skippedDerived: z
    .number()
    .int()
    .describe('Exported derived memories left out: their sources get new ids'),
  /** Every line that was not stored, with its number, code and message. */
  failures: z.array(z.object({ line: z.number().int(), code: z.string(), message: z.string() })),
  /** The ids stored, by line number. */
  stored: z.array(z.object({ line: z.number().int(), id: z.string() })),
});
export type ImportReport = z.output<typeof ImportReportSchema>;

/** A report of nothing imported yet. */
export function emptyImportReport(): ImportReport {
  return {
    lines: 0,
    imported: 0,
    refused: 0,
    refusedByCode: {},
    skippedDerived: 0,
    failures: [],
    stored: [],
  };
}

/**
 * Add `r` (the report of a later chunk of the same file) to `total`, keeping
 * at most `maxFailures` failures listed; the counts stay whole.
 */
export function addImportReport(
  total: Omit<ImportReport, 'stored'>,
  r: ImportReport,
  maxFailures = Infinity,
): void {
  total.lines += r.lines;
  total.imported += r.imported;
  total.refused += r.refused;
  total.skippedDerived += r.skippedDerived;
  for (const [code, n] of Object.entries(r.refusedByCode))
    total.refusedByCode[code] = (total.refusedByCode[code] ?? 0) + n;
  total.failures.push(...r.failures.slice(0, Math.max(0, maxFailures - total.failures.length)));
}

export async function importMemories(
  deps: EngineDeps,
  { ownerId, input }: ParsedArgs<typeof ImportArgs>,
  caller: Caller,
): Promise<ImportReport> {
  const report = emptyImportReport();
  const fail = (line: number, code: string, message: string) => {
    report.refused++;
    report.refusedByCode[code] = (report.refusedByCode[code] ?? 0) + 1;
    report.failures.push({ line, code, message });
  };
  const numbered = input.lines
    .map((text, i) => ({ n: input.firstLine + i, text }))
    .filter((l) => l.text.trim() !== '');
  report.lines = numbered.length;
  for (let i = 0; i < numbered.length; i += BATCH) {
    const inputs: unknown[] = [];
    const lineOf: number[] = [];
    for (const l of numbered.slice(i, i + BATCH)) {
      const parsed = parseImportLine(l.text);
      if (parsed.type === 'skipped_derived') report.skippedDerived++;
      else if (parsed.type === 'invalid') fail(l.n, parsed.code, parsed.message);
      else {
        inputs.push(parsed.input);
        lineOf.push(l.n);
      }
    }
    if (inputs.length === 0) continue;
    const r = await rememberMany(deps, { ownerId, items: inputs }, caller);
    report.imported += r.stored.length;
    // rememberMany answers the stored memories in input order, less the failed.
    const failed = new Set(r.failed.map((f) => f.index));
    const storedLines = lineOf.filter((_, k) => !failed.has(k));
    r.stored.forEach((m, k) => report.stored.push({ line: storedLines[k] ?? 0, id: m.id }));
    for (const f of r.failed) fail(lineOf[f.index] ?? 0, f.code, f.message);
  }
  return report;
}
