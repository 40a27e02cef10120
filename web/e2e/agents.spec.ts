import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';

// The agents page against the real stack (e2e/stack: the all-in-one agent
// and one more, agent-2): each row shows what the agent's heartbeats carry,
// and the versions are those the binaries print.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';

type Agent = { name: string; version: string; capacity: number; labels: Record<string, string> };

/** versionOf is the version a binary of ../bin prints with -version ("NAME VERSION (commit …"). */
function versionOf(bin: string): string {
  const line = execFileSync(resolve('..', 'bin', bin), ['-version'], { encoding: 'utf8' });
  return line.split(' ')[1]!;
}

test('the agents page lists the all-in-one agent and agent-2 with their versions', async ({ page }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  await expect(page.getByRole('heading', { name: 'Agents', level: 1 })).toBeVisible();
  await expect(page.getByTestId('agents-live')).toHaveText(/^2 of 2 live · 0 of \d+ shard slots busy$/, { timeout: 30_000 });
  await expect(page.getByTestId('agents-pools')).toHaveText('Project default may use every agent.');
  await expect(page.getByRole('region', { name: 'No agents online' })).toHaveCount(0);

  const items = ((await (await page.request.get('/api/v1/agents')).json()) as { items: Agent[] }).items;
  const allInOne = items.find((a) => a.name.startsWith('all-in-one@'));
  const second = items.find((a) => a.name === 'agent-2');
  expect(allInOne?.version).toBe(versionOf('barrage-api'));
  expect(second?.version).toBe(versionOf('barrage-agent'));
  const slots = allInOne!.capacity + second!.capacity;
  await expect(page.getByTestId('agents-live')).toHaveText(`2 of 2 live · 0 of ${slots} shard slots busy`);

  const table = page.getByRole('table', { name: 'Agents' });
  await expect(table.getByRole('columnheader')).toHaveText([
    'Name', 'State', 'Pool', 'Labels', 'Version', 'Running shards', 'Capacity', 'CPU', 'Memory (RSS)', 'Last seen', 'For default',
  ]);
  await expect(table.getByRole('row').filter({ hasText: allInOne!.name }).getByRole('cell')).toHaveText([
    allInOne!.name, '● live', 'none', 'mode=all-in-one', allInOne!.version, '0', String(allInOne!.capacity),
    /^\d+\.\d%$/, /^\d+(\.\d+)? MiB$/, /^\d s ago$/, 'usable',
  ]);
  await expect(table.getByRole('row').filter({ hasText: 'agent-2' }).getByRole('cell')).toHaveText([
    'agent-2', '● live', 'none', '', second!.version, '0', String(second!.capacity), /^\d+\.\d%$/, /^\d+(\.\d+)? MiB$/, /^\d s ago$/, 'usable',
  ]);
});

test('an agent lists the shards it holds, each linking to its run @own-stack', async ({ page }) => {
  const login = await page.request.post('/api/v1/auth/login', { data: { email, password } });
  expect(login.status()).toBe(200);
  // On the stack of the @own-stack specs: the main stack's specs count the
  // default project's runs, and a second project would become the
  // dashboard's first choice for the specs after this one.
  const target = `http://127.0.0.1:${port + 1}/`;
  const started = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name: 'held shards', spec: { url: target, qps: 20, connections: 2, duration: '30s', agents: { count: 2 } } },
  });
  expect(started.status(), await started.text()).toBe(201);
  const run = (await started.json()) as { id: string };

  await page.goto('/agents');
  const table = page.getByRole('table', { name: 'Agents' });
  const held = table.getByRole('list', { name: 'Shards agent-2 holds' });
  await expect(held.getByRole('listitem')).toHaveText([/^held shards #[01]$/], { timeout: 30_000 });
  const allInOne = table.getByRole('list', { name: /^Shards all-in-one@.* holds$/ });
  await expect(allInOne.getByRole('listitem')).toHaveText([/^held shards #[01]$/]);
  await expect(page.getByTestId('agents-live')).toContainText('2 of 2 live · 2 of');

  await table.getByRole('list', { name: 'Shards agent-2 holds' }).getByRole('link', { name: 'held shards' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${run.id}$`));
  const stopped = await page.request.post(`/api/v1/runs/${run.id}/stop`);
  expect(stopped.status(), await stopped.text()).toBeLessThan(300);
});
