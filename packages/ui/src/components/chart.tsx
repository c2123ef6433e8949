// A time chart (uPlot, canvas) with the same figures as a table beside it:
// the canvas is for the eye, the table for screen readers and for copying.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { Table } from './table.tsx';

export interface Series {
  label: string;
  colour: string;
  values: (number | null)[];
  /** Drawn on the right-hand 0..1 scale (shares) instead of counts. */
  share?: boolean;
}

export function TimeChart({
  title,
  days,
  series,
}: {
  title: string;
  days: string[];
  series: Series[];
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || days.length === 0) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 220,
        // The days are UTC days: label the axis in UTC too.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.colour,
            width: 2,
            scale: s.share ? 'share' : 'count',
            spanGaps: true,
          })),
        ],
        // A day either side of the data, so one day of events is drawn a day wide.
        scales: {
          x: { time: true, auto: false, range: [xs[0]! - 86_400, xs[xs.length - 1]! + 86_400] },
          share: { auto: false, range: [0, 1] },
        },
        axes: [{}, { scale: 'count' }, { scale: 'share', side: 1, grid: { show: false } }],
      },
      [xs, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = () => plot.setSize({ width: Math.max(280, el.clientWidth), height: 220 });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [days, series]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {days.length === 0 ? (
        <p class="empty">No audit events yet.</p>
      ) : (
        <>
          <div ref={box} role="img" aria-label={`${title}: chart of the table below`} />
          <details>
            <summary>Figures by day</summary>
            <Table label={`${title} by day`} head={['Day', ...series.map((s) => s.label)]}>
              {days.map((d, i) => (
                <tr>
                  <th scope="row">{d}</th>
                  {series.map((s) => (
                    <td>{fmt(s.values[i], s.share)}</td>
                  ))}
                </tr>
              ))}
            </Table>
          </details>
        </>
      )}
    </figure>
  );
}

function fmt(v: number | null | undefined, isShare?: boolean): string {
  if (v === null || v === undefined) return '—';
  return isShare ? `${(v * 100).toFixed(1)}%` : String(Math.round(v * 10) / 10);
}

/** Counts as horizontal bars with their numbers: memories by kind, by authority. */
export function Bars({
  title,
  counts,
  colours = {},
  labels = {},
}: {
  title: string;
  counts: Record<string, number>;
  colours?: Record<string, string>;
  labels?: Record<string, string>;
}) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  return (
    <section class="card bars" aria-label={title}>
      <h3>{title}</h3>
      {entries.length === 0 ? <p class="empty">None.</p> : null}
      <dl>
        {entries.map(([k, n]) => (
          <div class="bar-row">
            <dt>{labels[k] ?? k}</dt>
            <dd>
              <span
                class="bar"
                style={{ width: `${(n / max) * 100}%`, background: colours[k] ?? '#4a6fa5' }}
              />
              <span class="bar-n">{n}</span>
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
