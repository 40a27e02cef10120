import { readFileSync } from 'node:fs';
import type { Browser } from '@playwright/test';

/**
 * Real is the file that `ingestbench -scenario big-run -hold FILE` writes
 * (bench/web-big-run), named by WEB_BENCH_API: a real barrage-api serving the
 * dashboard and a run seeded through its ingest. live is the run's seconds
 * still to come, one a second, when the file was written (-live); 0 once it
 * had ended.
 */
export type Real = { base: string; run: string; email: string; password: string; seconds: number; shards: number; live: number };

export const real: Real | undefined = process.env.WEB_BENCH_API ? (JSON.parse(readFileSync(process.env.WEB_BENCH_API, 'utf8')) as Real) : undefined;

/** signedIn is the storage state of a session signed in to the real API, or undefined without one. */
export async function signedIn(browser: Browser) {
  if (!real) return undefined;
  const page = await browser.newPage();
  await page.goto(`${real.base}/sign-in`);
  await page.getByLabel('Email').fill(real.email);
  await page.getByLabel('Password').fill(real.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/runs$/);
  const state = await page.context().storageState();
  await page.close();
  return state;
}

/** median is the middle of xs, rounded to the ms. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]!);
}
