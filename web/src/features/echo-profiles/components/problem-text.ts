import { ApiError } from '@/lib/api-client';

/** problemText is what a failed call says to the user. */
export function problemText(err: unknown): string {
  return err instanceof ApiError ? (err.problem.detail ?? err.problem.title) : 'Cannot reach the API';
}
