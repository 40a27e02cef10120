import { ApiError } from '@/lib/api-client';

/** problemText is what a failed call says to the user. */
export function problemText(err: unknown): string {
  return err instanceof ApiError ? (err.problem.detail ?? err.problem.title) : 'Cannot reach the API';
}

/**
 * generalError is a form's error that belongs to no field: the problem's
 * text when no field shows it (placed false), and the field errors the
 * form has no field for (other).
 */
export function generalError(err: unknown, placed: boolean, other: string[]): string | undefined {
  if (err && !placed) return [problemText(err), ...other].join('; ');
  return other.length > 0 ? other.join('; ') : undefined;
}
