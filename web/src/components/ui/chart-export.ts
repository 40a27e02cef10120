/** CsvTable is the data behind a chart: a header row and one row per point. */
export interface CsvTable {
  header: readonly string[];
  rows: readonly (readonly (string | number | undefined)[])[];
}

/** csvText writes a CsvTable as RFC 4180 CSV: commas, CRLF, fields with a comma, quote or newline quoted. */
export function csvText(t: CsvTable): string {
  const cell = (v: string | number | undefined) => {
    const s = v === undefined || (typeof v === 'number' && !Number.isFinite(v)) ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [t.header, ...t.rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** fileName makes a title a file name: "Requests per second" → "requests-per-second". */
export function fileName(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'chart';
}

/** saveUrl downloads url as name through a temporary link. */
export function saveUrl(url: string, name: string) {
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
}

/** save downloads blob as name through a temporary link. */
export function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  saveUrl(url, name);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** PngLegendItem is a legend entry drawn under the chart in a PNG: its swatch in a resolved colour. */
export interface PngLegendItem {
  label: string;
  color: string;
  dashed?: boolean;
  area?: boolean;
}

/** PngFrame is what a PNG shows around the chart: its title above, its legend below, in the card's text colour and font. */
export interface PngFrame {
  title?: string;
  legend?: readonly PngLegendItem[];
  text: string;
  font: string;
}

const titleHeight = 28;
const legendRow = 20;
const pad = 8;

/** legendRows lays the legend out in rows no wider than width: each item a 18 px swatch, a gap, its label and a gap after. */
export function legendRows(items: readonly PngLegendItem[], width: number, measure: (s: string) => number): PngLegendItem[][] {
  const rows: PngLegendItem[][] = [];
  let x = 0;
  for (const it of items) {
    const w = 18 + 6 + measure(it.label) + 16;
    if (x + w > width && (rows.at(-1)?.length ?? 0) > 0) {
      rows.push([]);
      x = 0;
    }
    if (rows.length === 0) rows.push([]);
    rows.at(-1)!.push(it);
    x += w;
  }
  return rows;
}

/** The presentation properties recharts sets through CSS or var(--…), copied onto the clone as values. */
const styled = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity', 'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline', 'visibility'] as const;

/**
 * svgPng renders svg to a PNG at scale times its size on background: a
 * clone with each element's computed presentation inlined (the page's CSS
 * variables do not reach an SVG drawn as an image), drawn on a canvas.
 */
export async function svgPng(svg: SVGSVGElement, background: string, scale = 2, frame?: PngFrame): Promise<Blob> {
  const { width, height } = svg.getBoundingClientRect();
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [clone, ...clone.querySelectorAll('*')];
  from.forEach((el, i) => {
    const cs = getComputedStyle(el);
    const out = to[i] as SVGElement;
    for (const p of styled) out.style.setProperty(p, cs.getPropertyValue(p));
  });
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(clone)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas');
    const font = `13px ${frame?.font ?? 'sans-serif'}`;
    ctx.font = font;
    const rows = frame?.legend?.length ? legendRows(frame.legend, width - 2 * pad, (t) => ctx.measureText(t).width) : [];
    const top = frame?.title ? titleHeight : 0;
    const bottom = rows.length ? rows.length * legendRow + pad : 0;
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round((top + height + bottom) * scale);
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, top, width, height);
    if (frame) drawFrame(ctx, frame, rows, { width, top, chartBottom: top + height, font });
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas made no PNG'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** drawFrame draws a PNG's title above the chart and its legend rows below it. */
function drawFrame(
  ctx: CanvasRenderingContext2D,
  frame: PngFrame,
  rows: PngLegendItem[][],
  at: { width: number; top: number; chartBottom: number; font: string },
) {
  ctx.fillStyle = frame.text;
  ctx.textBaseline = 'middle';
  if (frame.title) {
    ctx.font = `600 15px ${frame.font}`;
    ctx.fillText(frame.title, pad, at.top / 2);
  }
  ctx.font = at.font;
  rows.forEach((row, r) => {
    const y = at.chartBottom + pad + r * legendRow + legendRow / 2;
    let x = pad;
    for (const it of row) {
      ctx.strokeStyle = it.color;
      ctx.fillStyle = it.color;
      if (it.area) {
        ctx.globalAlpha = 0.6;
        ctx.fillRect(x + 1, y - 4, 16, 8);
        ctx.globalAlpha = 1;
      } else {
        ctx.lineWidth = 2;
        ctx.setLineDash(it.dashed ? [4, 3] : []);
        ctx.beginPath();
        ctx.moveTo(x + 1, y);
        ctx.lineTo(x + 17, y);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      ctx.fillStyle = frame.text;
      ctx.fillText(it.label, x + 24, y);
      x += 18 + 6 + ctx.measureText(it.label).width + 16;
    }
  });
}
