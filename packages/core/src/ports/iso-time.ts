// Stores compare times as numbers: both keep epoch milliseconds beside the
// ISO text of every time they filter or sort on.

/**
 * Epoch milliseconds of an ISO time. Comparisons run on these numbers, so a
 * time written with an offset (+02:00) compares correctly with one in UTC.
 * A time that does not parse is a bug upstream (the gate and the kit check
 * every time a caller sends), so it throws rather than compare as NaN.
 */
export function toMs(iso: string, field = 'time'): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms))
    throw new RangeError(`${field} is not a valid ISO time: ${JSON.stringify(iso)}`);
  return ms;
}
