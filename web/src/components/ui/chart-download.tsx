import { useEffect, useId, useRef, useState } from 'react';
import { csvText, fileName, save, saveUrl, svgPng, type CsvTable, type PngLegendItem } from './chart-export';

interface Props {
  /** title names the chart, in the button's accessible name and the files' names. */
  title: string;
  /** csv is the series the chart shows, read when asked for; or csvHref, where the API serves it. */
  csv?: () => CsvTable;
  csvHref?: string;
}

/**
 * cardLegend reads the HTML legend (chart-legend.tsx) of a chart card, each
 * swatch's colour as the page resolved it, for the PNG.
 */
function cardLegend(card: Element): PngLegendItem[] {
  return [...card.querySelectorAll('.run-legend li')].map((li) => {
    const rect = li.querySelector('rect');
    const line = li.querySelector('line');
    const cs = rect ? getComputedStyle(rect) : line ? getComputedStyle(line) : undefined;
    const color = (rect ? cs?.fill : cs?.stroke) ?? 'currentColor';
    return { label: li.textContent?.trim() ?? '', color, area: !!rect, dashed: !!cs && cs.strokeDasharray !== 'none' && cs.strokeDasharray !== '' };
  });
}

/**
 * ChartDownload is a chart card's Download menu: the chart as a PNG at twice
 * its size, with the card's heading above it and its legend below, or its
 * series as CSV with a header row. The PNG is of the first
 * chart drawing in the menu's card (the element with class card around it). A disclosure button
 * opens two buttons (Tab moves between them; Escape closes and returns focus).
 */
export function ChartDownload({ title, csv, csvHref }: Props) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string>();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const base = fileName(title);

  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent | FocusEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', away);
    document.addEventListener('focusin', away);
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('focusin', away);
    };
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const png = async () => {
    close();
    const card = root.current?.closest('.card');
    // The chart library's own svg, or a hand-drawn one (class chart-svg): the legend's icons are svgs too.
    const svg = card?.querySelector<SVGSVGElement>('.recharts-wrapper > svg, svg.chart-svg');
    if (!card || !svg) return setError('No chart to save yet.');
    try {
      const cs = getComputedStyle(card);
      const heading = card.querySelector('h2, h3')?.textContent?.trim();
      save(await svgPng(svg, cs.backgroundColor, 2, { title: heading || title, legend: cardLegend(card), text: cs.color, font: cs.fontFamily }), `${base}.png`);
      setError(undefined);
    } catch (e) {
      setError(`Could not make the PNG: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const data = () => {
    close();
    if (csvHref) saveUrl(csvHref, `${base}.csv`);
    else if (csv) save(new Blob([csvText(csv())], { type: 'text/csv' }), `${base}.csv`);
  };

  return (
    <div
      className="chart-download"
      ref={root}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          setOpen(false);
          button.current?.focus();
        }
      }}
    >
      <button ref={button} type="button" aria-expanded={open} aria-controls={`${id}-menu`} onClick={() => setOpen((o) => !o)}>
        Download<span className="sr-only"> {title}</span>
      </button>
      {open && (
        <ul id={`${id}-menu`}>
          <li>
            <button type="button" onClick={() => void png()}>
              PNG image
            </button>
          </li>
          <li>
            <button type="button" onClick={data}>
              CSV data
            </button>
          </li>
        </ul>
      )}
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
