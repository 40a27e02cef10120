import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext } from '@playwright/test';

// An agent lost mid-run, for real: a stack of this spec's own (e2e/stack on
// ports 18600-18605, its all-in-one agent only) gets a second agent,
// agent-lost, started here with its own NATS credentials. A run over both is
// dispatched, and once agent-lost's shard is running the agent is killed
// (SIGKILL). The run ends degraded: the run page says how many shards were
// lost, that the figures hold what they sent up to their last snapshot, and
// what to do next (the Agents page, run it again), and the Shards table
// shows agent-lost's shard lost. Its own stack, because a dead agent would
// change what the other specs count on the shared ones.

const port = 18600;
const base = `http://127.0.0.1:${port}`;
const echo = `http://127.0.0.1:${port + 1}/`;
const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const bin = (name: string) => resolve('..', 'bin', name);

type Shard = { shard: number; agent_name?: string; status: string; count: number };

let data = '';
let stack: ChildProcess | undefined;
let agent: ChildProcess | undefined;

test.afterAll(() => {
  for (const p of [agent, stack]) {
    if (p?.pid && p.exitCode === null) {
      try {
        process.kill(-p.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
  if (data) rmSync(data, { recursive: true, force: true });
});

async function until<T>(what: string, get: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function shards(request: APIRequestContext, id: string): Promise<Shard[]> {
  return ((await (await request.get(`${base}/api/v1/runs/${id}/shards`)).json()) as { items: Shard[] }).items;
}

test('an agent lost mid-run: the run ends degraded, and the run page says so and what to do', async ({ browser }) => {
  test.setTimeout(180_000);
  data = mkdtempSync(join(tmpdir(), 'barrage-e2e-lost-'));
  const log = openSync(join(data, 'stack.out'), 'a');
  stack = spawn('./e2e/stack', [String(port), 'barrage_e2e_lost', '1'], {
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, STACK_DATA: join(data, 'stack') },
  });
  await until('the stack', async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined), 90_000);

  const env = { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:5432/barrage_e2e_lost?sslmode=disable`, BARRAGE_NATS_KEYS: join(data, 'stack', 'nats-keys.json') };
  const creds = join(data, 'agent-lost.creds');
  execFileSync(bin('barrage-api'), ['agent-credentials', 'create', 'agent-lost', '-o', creds], { env, stdio: 'ignore' });
  agent = spawn(bin('barrage-agent'), ['serve', '-nats-url', `nats://127.0.0.1:${port + 4}`, '-name', 'agent-lost', '-creds', creds], {
    detached: true,
    stdio: ['ignore', log, log],
  });

  const context = await browser.newContext({ baseURL: base });
  const page = await context.newPage();
  const request = context.request;
  expect((await request.post(`${base}/api/v1/auth/login`, { data: { email, password } })).status()).toBe(200);
  await until(
    'agent-lost to be live',
    async () => {
      const items = ((await (await request.get(`${base}/api/v1/agents`)).json()) as { items: { name: string }[] }).items;
      return items.length === 2 && items.some((a) => a.name === 'agent-lost') ? true : undefined;
    },
    30_000,
  );

  const created = await request.post(`${base}/api/v1/runs`, {
    data: { project: 'default', name: 'agent lost', spec: { url: echo, qps: 40, connections: 4, duration: '12s', agents: { count: 2 } } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { id: string }).id;
  // Once agent-lost's shard has sent a snapshot (a count above 0), kill it.
  await until(
    "agent-lost's shard to run",
    async () => ((await shards(request, id)).some((s) => s.agent_name === 'agent-lost' && s.status === 'running' && s.count > 0) ? true : undefined),
    30_000,
  );
  process.kill(agent.pid!, 'SIGKILL');

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId('run-status')).toHaveText('completed', { timeout: 90_000 });
  const summary = page.getByRole('region', { name: 'Result summary' });
  await expect(summary.getByRole('alert')).toContainText('Degraded result.');
  await expect(summary.getByTestId('degraded-detail')).toContainText('1 of 2 shards were lost: their agent stopped answering mid-run.');
  await summary.getByRole('link', { name: 'Agents' }).focus();
  const table = page.getByRole('region', { name: 'Shards' });
  await expect(table.getByRole('row').filter({ hasText: 'agent-lost' }).getByTestId('shard-status')).toHaveText('lost');
  await expect(table.getByRole('row').filter({ hasText: /^\s*\d+\s*all-in-one@/ }).getByTestId('shard-status')).toHaveText('done');

  // What the API says agrees: one shard lost, the other done, and the result counts the lost
  // shard's sent requests too, short of the 480 asked.
  const all = await shards(request, id);
  expect(all.map((s) => s.status).sort()).toEqual(['done', 'lost']);
  const result = (await (await request.get(`${base}/api/v1/runs/${id}/result`)).json()) as { count: number; degraded: boolean; lost_shards: number };
  expect(result.degraded).toBe(true);
  expect(result.lost_shards).toBe(1);
  expect(result.count).toBe(all.reduce((n, s) => n + s.count, 0));
  expect(result.count).toBeLessThan(480);

  const res = await new AxeBuilder({ page }).analyze();
  expect(res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await context.close();
});
