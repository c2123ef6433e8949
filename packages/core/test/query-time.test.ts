// Dates a query names, as windows of observed time.
import { describe, expect, it } from 'vitest';
import { observedInWindows, queryTimeWindows } from '../src/domain/query-time.ts';

const now = new Date('2026-11-30T12:00:00Z');
const inQuery = (q: string, observedAt: string) =>
  observedInWindows(observedAt, queryTimeWindows(q, now));
/** For `q`, each time of `inside` is in a window it names, and each of `outside` in none. */
const expectWindows = (q: string, inside: string[], outside: string[] = []) => {
  for (const t of inside) expect(inQuery(q, t), `${q} / ${t}`).toBe(true);
  for (const t of outside) expect(inQuery(q, t), `${q} / ${t}`).toBe(false);
};
/** Each query names no time to filter by. */
const expectNoWindows = (...queries: string[]) => {
  for (const q of queries) expect(queryTimeWindows(q, now), q).toEqual([]);
};

describe('queryTimeWindows', () => {
  it('reads a full date as that day, with half a day of slack for time zones', () => {
    expectWindows(
      'What painting did Mel show on October 13, 2023?',
      ['2023-10-13T13:58:00Z', '2023-10-14T08:00:00Z'],
      ['2023-10-15T08:00:00Z', '2024-10-13T13:58:00Z'],
    );
  });

  it('reads the day of "the evening of 7 July, 2023", not this evening', () => {
    expectWindows(
      'What did Maria plan to do later on the evening of 7 July, 2023?',
      ['2023-07-07T18:00:00Z'],
      ['2023-07-09T18:00:00Z'],
    );
    expect(queryTimeWindows('What did I eat on the morning of March 3, 2024?', now)).toHaveLength(
      1,
    );
  });

  it('reads a month and year as the month, and a month alone as that month of any year', () => {
    expectWindows(
      'What setback came in October 2023?',
      ['2023-10-29T10:00:00Z'],
      ['2023-11-02T10:00:00Z'],
    );
    expectWindows(
      'When did she go camping in June?',
      ['2023-06-27T10:00:00Z', '2019-06-02T10:00:00Z'],
      ['2023-07-02T10:00:00Z'],
    );
  });

  it('reads a bare year after a preposition', () => {
    expectWindows(
      'How often did she go to the beach in 2023?',
      ['2023-03-01T00:00:00Z'],
      ['2024-03-01T00:00:00Z'],
    );
    expectNoWindows('I have 2023 photos');
  });

  it('reads relative days against the clock: yesterday, last week', () => {
    expectWindows('what did I do yesterday?', ['2026-11-29T18:00:00Z'], ['2026-11-27T18:00:00Z']);
    expectWindows(
      'what did we discuss last week',
      ['2026-11-26T09:00:00Z'],
      ['2026-11-10T09:00:00Z'],
    );
  });

  it("ignores times from the question's own day on: they say when something is to happen", () => {
    expectNoWindows(
      'Can you recommend a movie to watch tonight?',
      'any events happening this weekend?',
      'what should I plan for next month?',
    );
    expectWindows('what did I do yesterday?', ['2026-11-29T18:00:00Z']);
    // A month without a year is that month of any year: still a time memories were observed.
    expectWindows('When did she go camping in December?', ['2025-12-02T10:00:00Z']);
  });

  it('ignores what is too vague to count: no date, a weekday or an hour alone', () => {
    expectNoWindows(
      'When did Caroline go to the support group?',
      'what did I say at 5 pm?',
      'on Monday we talked',
    );
  });

  it('never matches an unparseable observed time', () => {
    expect(inQuery('in June', 'not a date')).toBe(false);
  });
});
