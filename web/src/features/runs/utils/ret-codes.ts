import { formatCount } from '@/lib/format';

/** isOkCode reports whether a result code is a success: HTTP 2xx, gRPC SERVING, TCP/UDP OK. */
export function isOkCode(code: string): boolean {
  return /^2\d\d$/.test(code) || code === 'SERVING' || code === 'OK';
}

/** countsText shows a map of counts (codes, failed checks…) largest first: "200 ×750, 503 ×12". */
export function countsText(m: Record<string, number> | undefined): string {
  return Object.entries(m ?? {})
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ×${formatCount(n)}`)
    .join(', ');
}
