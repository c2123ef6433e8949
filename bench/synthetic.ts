// Deterministic synthetic memories for performance benchmarks: seeded, so
// two runs (or two stores) see the same texts. Varied enough that full-text
// and vector indexes do real work; not meant for quality measurement. The
// vocabulary is shared with the workload generator (bench/workload/).
import { seededRandom } from '@keepgraph/core/testing';

export const PEOPLE = [
  'Alex',
  'Sam',
  'Jordan',
  'Riley',
  'Casey',
  'Morgan',
  'Taylor',
  'Quinn',
  'Dana',
  'Jamie',
  'Robin',
  'Avery',
];
export const VERBS = [
  'booked',
  'cancelled',
  'asked about',
  'recommended',
  'complained about',
  'enjoyed',
  'planned',
  'reviewed',
  'paid for',
  'forgot',
];
export const THINGS = [
  'a table at the Italian place',
  'the flight to Tokyo',
  'a yoga class',
  'the quarterly report',
  'a new laptop',
  'tickets for the jazz concert',
  'the dentist appointment',
  'a weekend in the mountains',
  'the hotel near the station',
  'a cooking workshop',
  'the car service',
  'a birthday present for their sister',
  'the team offsite',
  'a hiking trip',
  'the insurance renewal',
];
export const WHEN = [
  'yesterday',
  'last week',
  'on Monday',
  'this morning',
  'two days ago',
  'in March',
  'after lunch',
  'before the holidays',
  'on the weekend',
  'at the end of the month',
];
export const WHY = [
  'because the price was right',
  'since the reviews were great',
  'after a friend suggested it',
  'because of the schedule',
  'to save time',
  'for the kids',
  'as a surprise',
  'because it was raining',
  'to try something new',
  'for work',
];

/** Mulberry32 (core's seededRandom): reproducible workloads. */
export const rng = seededRandom;

/** One element of `xs`, chosen by `r`. */
export const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

export function syntheticTexts(n: number, seed = 42): string[] {
  const r = rng(seed);
  return Array.from(
    { length: n },
    (_, i) =>
      `${pick(r, PEOPLE)} ${pick(r, VERBS)} ${pick(r, THINGS)} ${pick(r, WHEN)} ${pick(r, WHY)} (note ${i})`,
  );
}

export function syntheticQueries(n: number, seed = 7): string[] {
  const r = rng(seed);
  return Array.from(
    { length: n },
    () => `What did ${pick(r, PEOPLE)} say about ${pick(r, THINGS)}?`,
  );
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
