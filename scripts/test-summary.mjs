// Prints the plain closing line CI reads ("tests: N passed, N failed, N skipped")
// from Vitest's JSON report, since Vitest's own summary is not one CI knows.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
