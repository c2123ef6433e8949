// The order test files start in: longest first, so that two workers finish
// together instead of one waiting on a long file that started last. Vitest
// orders by the durations it cached on this machine, and a fresh clone (CI)
// has none: it would fall back to file size, and some of the longest files
// (a crash test that restarts servers in a loop) are short. So the run's own
// measured durations are kept in test/durations.json (refreshed with
// `node scripts/test-summary.mjs .tmp/vitest-report.json --write-durations`),
// and files it does not know yet go first, as Vitest does.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const root = resolve(import.meta.dirname, '..');

/** Seconds per file, from a full run of the test command. */
const DURATIONS: Record<string, number> = JSON.parse(
  readFileSync(resolve(import.meta.dirname, 'durations.json'), 'utf8'),
) as Record<string, number>;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) =>
      DURATIONS[relative(root, f.moduleId)] ?? Number.POSITIVE_INFINITY;
    // Unknown files (Infinity) first, then longest first; never Infinity - Infinity.
    return [...files].sort((a, b) => {
      const [sa, sb] = [seconds(a), seconds(b)];
      return sa === sb ? 0 : sb > sa ? 1 : -1;
    });
  }
}
