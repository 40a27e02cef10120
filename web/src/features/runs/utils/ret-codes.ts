/** isOkCode reports whether a result code is a success: HTTP 2xx, gRPC SERVING, TCP/UDP OK. */
export function isOkCode(code: string): boolean {
  return /^2\d\d$/.test(code) || code === 'SERVING' || code === 'OK';
}
