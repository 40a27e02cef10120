import { expect, test, type Page } from '@playwright/test';
import { port } from '../playwright.config';
import { signIn } from './sign-in';

// Deleting a run from its page against the real stack: a finished run is
// pinned, then deleted through the confirmation; its page and the API no
// longer know it, and the audit log holds the deletion.

const echo = `http://127.0.0.1:${port + 1}/`;

/** completedRun starts a run of the echo in the default project and waits until it completed; it returns its id. */
async function completedRun(page: Page, name: string, duration: string): Promise<string> {
  const created = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name, spec: { url: echo, qps: 50, duration }, labels: { suite: 'e2e' } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');
  return id;
}

test('delete a finished, pinned run from its page', async ({ page }) => {
  await signIn(page);
  const id = await completedRun(page, 'e2e to delete', '2s');
  const intervals = await page.request.get(`/api/v1/runs/${id}/intervals`);
  expect(((await intervals.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId('run-status')).toHaveText(/completed/);
  await page.getByTestId('pin-run').click();
  await expect(page.getByTestId('run-pinned')).toBeVisible();

  await page.getByTestId('delete-run').click();
  const confirm = page.getByRole('group', { name: 'Confirm delete' });
  await expect(confirm).toContainText('This run is pinned');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect((await page.request.get(`/api/v1/runs/${id}`)).status()).toBe(200);

  await page.getByTestId('delete-run').click();
  await page.getByTestId('confirm-delete-run').click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByText('e2e to delete')).toHaveCount(0);

  expect((await page.request.get(`/api/v1/runs/${id}`)).status()).toBe(404);
  expect((await page.request.get(`/api/v1/runs/${id}/intervals`)).status()).toBe(404);
  const audit = await page.request.get('/api/v1/audit?action=run.delete');
  expect(audit.status()).toBe(200);
  const entries = ((await audit.json()) as { items: { target_id: string; action: string }[] }).items;
  expect(entries.filter((e) => e.target_id === id && e.action === 'run.delete')).toHaveLength(1);
});

// The run page offers only what the caller's role may do: a runner pins a
// finished run but gets no Delete button (the API answers 403), a viewer
// gets neither.
test('a runner may pin a run but not delete it; a viewer may do neither', async ({ page, browser }) => {
  await signIn(page);
  const id = await completedRun(page, 'e2e roles', '1s');

  for (const role of ['runner', 'viewer'] as const) {
    const who = `e2e-${role}-${Date.now()}@barrage.local`;
    const pass = `e2e-${role}-password-0123`;
    const user = await page.request.post('/api/v1/users', { data: { email: who, name: `E2E ${role}`, password: pass } });
    expect(user.status(), await user.text()).toBe(201);
    const { user: u } = (await user.json()) as { user: { id: string } };
    const member = await page.request.put(`/api/v1/projects/default/members/${u.id}`, { data: { role } });
    expect(member.status(), await member.text()).toBe(200);

    const ctx = await browser.newContext();
    const other = await ctx.newPage();
    await other.goto('/sign-in');
    await other.getByLabel('Email').fill(who);
    await other.getByLabel('Password').fill(pass);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await expect(other).toHaveURL(/\/runs$/);
    await other.goto(`/runs/${id}`);
    await expect(other.getByTestId('run-status')).toHaveText(/completed/);
    await expect(other.getByRole('link', { name: 'Download Barrage JSON' })).toBeVisible();
    await expect(other.getByTestId('delete-run')).toHaveCount(0);
    await expect(other.getByTestId('pin-run')).toHaveCount(role === 'runner' ? 1 : 0);
    // What the page hides, the API refuses.
    expect((await other.request.delete(`/api/v1/runs/${id}`)).status()).toBe(403);
    await ctx.close();
  }
});
