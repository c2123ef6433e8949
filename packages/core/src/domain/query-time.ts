// Dates named in a query ("on October 13, 2023", "in June", "yesterday",
// "last week", "in 2023") as windows of observed time: recall favours
// memories observed inside them. chrono-node reads the phrases against the
// recall's clock; only what it is certain of is used, so "in June" matches
// June of any year rather than the June chrono guesses, and a bare weekday or
// hour is too vague to count.
//
// The English parser only ('chrono-node/en', which the package's own
// `parse` calls): the package's root loads every locale, 266 modules and a
// quarter of a second at each start of a command or server.
import * as chrono from 'chrono-node/en';

/** A span of observed time; with `anyYear`, the same span in every year. */
export interface TimeWindow {
  start: Date;
  end: Date;
  anyYear: boolean;
  /** The words of the query that named it. */
  text: string;
}

const DAY_MS = 86_400_000;
// Observed times are instants and the query's dates are calendar days in an
// unknown time zone: a day window reaches half a day past each end.
const DAY_SLACK_MS = DAY_MS / 2;
const PART_OF_DAY_OF = /\b(?:the\s+)?(?:morning|afternoon|evening|night)\s+of\b/giu;
const BARE_YEAR = /\b(?:in|of|during|since|from)\s+((?:19|20)\d\d)\b/giu;

const utcDay = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));

export function queryTimeWindows(query: string, now: Date): TimeWindow[] {
  const out: TimeWindow[] = [];
  // A time from the question's own day on ("tonight", "this weekend", "next
  // month") is when something is to happen, not when a memory was observed:
  // "a show to watch tonight" is not about what was said today. Only
  // windows that begin before that day locate memories.
  const today = utcDay(now.getUTCFullYear(), now.getUTCMonth() + 1, now.getUTCDate());
  const past = (w: TimeWindow) => w.anyYear || w.start.getTime() < today.getTime() - DAY_SLACK_MS;
  // chrono reads "the evening of 7 July, 2023" as this evening and drops
  // the date; the part of the day says nothing a day window does not.
  const dated = query.replace(PART_OF_DAY_OF, ' ');
  for (const r of chrono.parse(dated, now)) {
    const c = r.start;
    if (!c.isCertain('month') && !/\bweek\b/iu.test(r.text)) continue;
    const y = c.get('year') ?? now.getUTCFullYear();
    const m = c.get('month') ?? 1;
    const anyYear = !c.isCertain('year');
    if (c.isCertain('day') || /\bweek\b/iu.test(r.text)) {
      const day = utcDay(y, m, c.get('day') ?? 1);
      // "last week" / "this week": chrono gives one day of it; take seven.
      const days = /\bweek\b/iu.test(r.text) ? 7 : 1;
      const endDay = r.end
        ? utcDay(r.end.get('year') ?? y, r.end.get('month') ?? m, r.end.get('day') ?? 1)
        : day;
      out.push({
        start: new Date(day.getTime() - DAY_SLACK_MS),
        end: new Date(endDay.getTime() + days * DAY_MS + DAY_SLACK_MS),
        anyYear,
        text: r.text,
      });
    } else {
      out.push({ start: utcDay(y, m, 1), end: utcDay(y, m + 1, 1), anyYear, text: r.text });
    }
  }
  for (const match of dated.matchAll(BARE_YEAR)) {
    const y = Number(match[1]);
    out.push({ start: utcDay(y, 1, 1), end: utcDay(y + 1, 1, 1), anyYear: false, text: match[0] });
  }
  return out.filter(past);
}

/** Whether an observed instant falls in any of the windows. */
export function observedInWindows(observedAt: string, windows: readonly TimeWindow[]): boolean {
  const t = new Date(observedAt);
  const ms = t.getTime();
  if (Number.isNaN(ms)) return false;
  return windows.some((w) => {
    if (!w.anyYear) return ms >= w.start.getTime() && ms < w.end.getTime();
    // Move the window to the observed year (and the year before, for a
    // window that crosses New Year) and test again.
    return [0, -1].some((back) => {
      const shift = (d: Date) => {
        const s = new Date(d);
        s.setUTCFullYear(d.getUTCFullYear() - w.start.getUTCFullYear() + t.getUTCFullYear() + back);
        return s.getTime();
      };
      return ms >= shift(w.start) && ms < shift(w.end);
    });
  });
}
