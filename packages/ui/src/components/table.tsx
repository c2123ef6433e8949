// A data table: column headings, rows, and a wrapper that scrolls sideways
// on a narrow screen and can take keyboard focus to be scrolled (axe's
// scrollable-region-focusable), named for screen readers.
import type { ComponentChildren } from 'preact';

export function Table({
  head,
  label,
  children,
}: {
  head: readonly string[];
  label: string;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table>
        <thead>
          <tr>
            {head.map((h) => (
              <th scope="col">{h}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
