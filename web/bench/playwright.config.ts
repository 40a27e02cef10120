import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

// The render bench: the built dashboard (vite preview of dist) with the API
// answered by the bench itself, so only the browser's work is timed.
export const port = Number(process.env.WEB_BENCH_PORT ?? 18390);

export default defineConfig({
  testDir: '.',
  testMatch: '*.bench.ts',
  timeout: 300_000,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  webServer: {
    command: `npx vite preview --host 127.0.0.1 --port ${port} --strictPort`,
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    url: `http://127.0.0.1:${port}/`,
    timeout: 60_000,
    reuseExistingServer: false,
  },
});
