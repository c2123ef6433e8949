// How hard the reliability tests push: crash rounds, fuzz cases, seconds of
// load. The test command runs them at CI scale, which is enough for each to
// catch the fault it exists for (a write acknowledged before its commit, one
// owner's marker in another's answer, a field past the gate: see
// test/README.md); `pnpm test:full` (KG_TEST_SCALE=full) runs the full-scale
// figures. A variable of a test's own (KG_CRASH_ROUNDS, ...) overrides both.

/** `full` when KG_TEST_SCALE=full, else `ci`. */
export const TEST_SCALE: 'ci' | 'full' = process.env.KG_TEST_SCALE === 'full' ? 'full' : 'ci';

/** The value of `variable` when set, else this scale's. */
export function scaled(variable: string, at: { ci: number; full: number }): number {
  const given = process.env[variable];
  if (given !== undefined && given.trim() !== '') {
    const n = Number(given);
    if (!Number.isFinite(n) || n <= 0)
      throw new Error(`${variable} must be a positive number, got ${given}`);
    return n;
  }
  return at[TEST_SCALE];
}
