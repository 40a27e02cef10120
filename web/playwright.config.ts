import { defineConfig } from '@playwright/test';

// The browser tests run against a real all-in-one stack (e2e/stack): API and
// dashboard, embedded NATS, two agents and the echo target, on a fresh
// Postgres database. Chromium is Debian's (apt-get install chromium).
export const port = Number(process.env.E2E_PORT ?? 18300);

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 900 },
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: `./e2e/stack ${port} ${process.env.E2E_DB ?? 'barrage_e2e'} 2`,
    url: `http://127.0.0.1:${port}/readyz`,
    timeout: 90_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
  },
});
