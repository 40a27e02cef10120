import { useState, type ReactNode } from 'react';

/** One column of a chart's table view: its header and how a row shows in it. */
export interface ChartColumn<R> {
  label: string;
  value: (row: R) => ReactNode;
  /** num right-aligns the column in tabular figures. */
  num?: boolean;
}

interface Props<R> {
  /** title names the chart the table stands behind, for its toggle and caption: "Requests per second". */
  title: string;
  columns: readonly ChartColumn<R>[];
  rows: readonly R[];
  rowKey: (row: R, index: number) => string | number;
}

/**
 * ChartTable is the table view behind a chart: the points the chart draws,
 * as rows, under a disclosure toggle, so screen-reader and keyboard users
 * read what sighted users see. The rows render only while the view is open,
 * since the live charts redraw every second.
 */
export function ChartTable<R>({ title, columns, rows, rowKey }: Props<R>) {
  const [open, setOpen] = useState(false);
  return (
    <details className="chart-table" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Table view<span className="sr-only"> of {title}</span>
      </summary>
      {open && (
        // Focusable, so a keyboard scrolls the capped table too.
        <div className="table-wrap" tabIndex={0} role="region" aria-label={`${title}, table view`}>
          <table>
            <caption className="sr-only">
              {title}: {rows.length} row{rows.length === 1 ? '' : 's'}
            </caption>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th key={c.label} scope="col" className={c.num ? 'num' : undefined}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={rowKey(r, i)}>
                  {columns.map((c) => (
                    <td key={c.label} className={c.num ? 'num' : undefined}>
                      {c.value(r)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
