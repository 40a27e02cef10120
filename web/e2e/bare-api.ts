import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { port } from '../playwright.config';

/**
 * BareApi is a second barrage-api for the specs of states the main stack
 * (e2e/stack) never is in: `serve` without -all-in-one, so no agent, with
 * its embedded NATS for agents that never come, on a fresh database whose
 * default project has no run. It listens on E2E_PORT+6 (NATS on +7), past
 * the stack's ports. stop and start end and restart the process on the same
 * database and NATS directory, so a session signed in before a stop still
 * holds after the start: the API process stopped, and back.
 */
export class BareApi {
  readonly url = `http://127.0.0.1:${port + 6}`;
  private proc?: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), 'barrage-bare-'));
  private readonly db = `${process.env.E2E_DB ?? 'barrage_e2e'}_bare`;
  private log = '';

  constructor() {
    this.dropDb();
  }

  private dropDb() {
    execFileSync('psql', ['-q', 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable', '-c', `DROP DATABASE IF EXISTS "${this.db}" WITH (FORCE)`], {
      env: { ...process.env, PGOPTIONS: '-c client_min_messages=warning' },
    });
  }

  async start(): Promise<void> {
    const env = {
      ...process.env,
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${this.db}?sslmode=disable`,
      BARRAGE_LISTEN: `127.0.0.1:${port + 6}`,
      BARRAGE_NATS_LISTEN: `127.0.0.1:${port + 7}`,
      BARRAGE_NATS_DATA_DIR: join(this.dir, 'nats'),
      BARRAGE_ADMIN_CREDENTIALS_FILE: join(this.dir, 'admin-credentials'),
      BARRAGE_ADMIN_EMAIL: 'admin@barrage.local',
      BARRAGE_ADMIN_PASSWORD: process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123',
      BARRAGE_RATE_LIMIT: '0',
    };
    const proc = spawn(resolve('..', 'bin', 'barrage-api'), ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout.on('data', (b: Buffer) => (this.log += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (this.log += b.toString()));
    this.proc = proc;
    for (let i = 0; i < 150; i++) {
      if (proc.exitCode !== null) throw new Error(`barrage-api exited ${proc.exitCode}:\n${this.log}`);
      try {
        if ((await fetch(`${this.url}/readyz`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`barrage-api not ready in 30 s:\n${this.log}`);
  }

  /** stop ends the process (SIGTERM) and resolves once it has exited and its port refuses connections. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    this.proc = undefined;
  }

  /** close stops the process and removes its files and database. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
    this.dropDb();
  }
}
