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

/** save downloads blob as name through a temporary link. */
export function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The presentation properties recharts sets through CSS or var(--…), copied onto the clone as values. */
const styled = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity', 'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline', 'visibility'] as const;

/**
 * svgPng renders svg to a PNG at scale times its size on background: a
 * clone with each element's computed presentation inlined (the page's CSS
 * variables do not reach an SVG drawn as an image), drawn on a canvas.
 */
export async function svgPng(svg: SVGSVGElement, background: string, scale = 2): Promise<Blob> {
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
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas');
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas made no PNG'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
