// Prints the slowest test files of the run, then the plain closing line CI
// reads ("tests: N passed, N failed, N skipped") from Vitest's JSON report,
// since Vitest's own summary is not one CI knows.
// With --write-durations, also records every file's duration in
// test/durations.json, the order test/sequencer.ts starts files in.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
/** A test file's path from the checkout it ran in (the folder of vitest.config.ts), wherever that was. */
function fromCheckout(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(`${dir}/vitest.config.ts`)) return relative(dir, file);
  return relative(process.cwd(), file);
}
const files = (report.testResults ?? [])
  .map((f) => ({
    name: fromCheckout(f.name),
    ms: (f.endTime ?? 0) - (f.startTime ?? 0),
  }))
  .sort((a, b) => b.ms - a.ms);
if (files.length > 0) {
  console.log('slowest test files:');
  for (const f of files.slice(0, 10))
    console.log(`  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.name}`);
}
if (process.argv.includes('--write-durations')) {
  const durations = Object.fromEntries(
    [...files]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((f) => [f.name, Math.round(f.ms / 100) / 10]),
  );
  writeFileSync('test/durations.json', `${JSON.stringify(durations, null, 2)}\n`);
  console.log(`test/durations.json: ${files.length} files`);
}
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
);
