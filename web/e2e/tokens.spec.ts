import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';

// API tokens against the real stack: an admin creates one from the page, sees
// its secret once and copies it; the secret works on the API, the list then
// shows its last use; revoking it (after a confirmation) ends it at once.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';

type Token = { id: string; name: string; hint: string; role: string; expires_at?: string; last_used_at?: string; revoked_at?: string };

test('create, copy, use and revoke an API token', async ({ page, context, playwright }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }).click();
  await expect(page.getByRole('heading', { name: 'API tokens' })).toBeVisible();
  await expect(page.getByText('No tokens yet.')).toBeVisible();

  const form = page.getByRole('form', { name: 'Create token' });
  await expect(form.getByRole('button', { name: 'Create token' })).toBeDisabled();
  await form.getByLabel('Name').fill('e2e nightly');
  await form.getByLabel('Role').selectOption('viewer');
  await form.getByLabel('Expires after').selectOption({ label: '7 days' });
  await form.getByRole('button', { name: 'Create token' }).click();

  const shown = page.getByRole('region', { name: 'Token e2e nightly created' });
  await expect(shown).toContainText('shown only once');
  const secretBox = shown.getByRole('textbox', { name: 'Token secret' });
  await expect(secretBox).toHaveValue(/^brg_[A-Za-z0-9_-]{48}$/);
  const secret = await secretBox.inputValue();
  await shown.getByRole('button', { name: 'Copy token' }).click();
  await expect(shown.getByRole('status')).toHaveText('Copied to the clipboard');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  // The API holds it with the chosen role and a 7-day expiry, and never its secret.
  const listed = await page.request.get('/api/v1/tokens?project=default');
  expect(listed.status()).toBe(200);
  const body = await listed.text();
  expect(body).not.toContain(secret);
  const items = (JSON.parse(body) as { items: Token[] }).items;
  expect(items).toHaveLength(1);
  const [tok] = items as [Token];
  expect(tok).toMatchObject({ name: 'e2e nightly', role: 'viewer' });
  const days = (Date.parse(tok.expires_at!) - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(6.9);
  expect(days).toBeLessThanOrEqual(7);
  expect(tok.last_used_at).toBeUndefined();

  const table = page.getByRole('table', { name: 'API tokens' });
  const row = table.getByRole('row').filter({ hasText: 'e2e nightly' });
  await expect(table.getByRole('row')).toHaveCount(2);
  expect(secret.startsWith(tok.hint)).toBe(true);
  await expect(row.getByRole('cell')).toHaveText(['e2e nightly', `${tok.hint}…`, 'viewer', /\d/, 'in 6 d', 'never', 'active', 'Revoke…']);

  // The secret works on the API (a client with no session), as a viewer.
  const bearer = await playwright.request.newContext({
    baseURL: `http://127.0.0.1:${port}`,
    extraHTTPHeaders: { Authorization: `Bearer ${secret}` },
  });
  expect((await bearer.get('/api/v1/runs?project=default')).status()).toBe(200);
  expect((await bearer.post('/api/v1/runs', { data: { project: 'default', spec: { url: `http://127.0.0.1:${port + 1}/`, qps: 1, duration: '1s' } } })).status()).toBe(403);

  await page.reload();
  await expect(row.getByRole('cell').nth(5)).toHaveText(/^\d+ s ago$/);
  await expect(page.getByRole('region', { name: 'Token e2e nightly created' })).toHaveCount(0);
  await expect(page.getByText(secret)).toHaveCount(0);

  // Revoke: Keep leaves it working, Revoke ends it.
  await row.getByRole('button', { name: 'Revoke e2e nightly' }).click();
  const confirm = page.getByRole('group', { name: 'Confirm revoke of e2e nightly' });
  await confirm.getByRole('button', { name: 'Keep' }).click();
  expect((await bearer.get('/api/v1/runs?project=default')).status()).toBe(200);
  await row.getByRole('button', { name: 'Revoke e2e nightly' }).click();
  await confirm.getByRole('button', { name: 'Revoke' }).click();
  await expect(row.getByRole('cell').nth(6)).toHaveText('revoked');
  await expect(row.getByRole('button')).toHaveCount(0);

  expect((await bearer.get('/api/v1/runs?project=default')).status()).toBe(401);
  const after = ((await (await page.request.get('/api/v1/tokens?project=default')).json()) as { items: Token[] }).items;
  expect(after).toHaveLength(1);
  expect(after[0]!.revoked_at).toBeTruthy();
  expect(after[0]!.last_used_at).toBeTruthy();
  const audit = ((await (await page.request.get('/api/v1/audit?project=default&action=token.')).json()) as {
    items: { action: string; target_id: string }[];
  }).items;
  expect(audit.filter((e) => e.target_id === tok.id).map((e) => e.action)).toEqual(['token.revoke', 'token.create']);
  await bearer.dispose();
});
