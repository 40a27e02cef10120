import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';

// The audit log page against the real stack: an admin filters it by action,
// by actor (a token's name) and by time, and pages through it; each view
// holds exactly what GET /audit holds for the same filter.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';

type Entry = { id: number; action: string; target_id: string; at: string };

test('filter and page the audit log', async ({ page, playwright }) => {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  // Twelve tokens make twelve token.create entries, the last six in a later
  // second than the first six (the time filter takes whole seconds); the
  // last token then starts a run.
  const ids: string[] = [];
  let secret = '';
  let boundary = 0;
  for (let i = 1; i <= 12; i++) {
    if (i === 7) {
      boundary = (Math.floor(Date.now() / 1000) + 1) * 1000;
      await new Promise((r) => setTimeout(r, boundary - Date.now() + 50));
    }
    const res = await page.request.post('/api/v1/tokens', { data: { project: 'default', name: `audit e2e ${i}`, role: 'runner' } });
    expect(res.status(), await res.text()).toBe(201);
    const t = (await res.json()) as { id: string; secret: string };
    ids.push(t.id);
    secret = t.secret;
  }
  const bearer = await playwright.request.newContext({
    baseURL: `http://127.0.0.1:${port}`,
    extraHTTPHeaders: { Authorization: `Bearer ${secret}` },
  });
  const run = await bearer.post('/api/v1/runs', {
    data: { project: 'default', name: 'audit e2e run', spec: { url: `http://127.0.0.1:${port + 1}/`, qps: 5, duration: '1s' } },
  });
  expect(run.status(), await run.text()).toBe(201);
  const runId = ((await run.json()) as { id: string }).id;
  await bearer.dispose();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  const table = page.getByRole('table', { name: 'Audit log' });
  const rows = table.locator('tbody').getByRole('row');
  const filters = page.getByRole('form', { name: 'Filter audit log' });
  const pages = page.getByRole('navigation', { name: 'Audit log pages' });

  // Action filter, ten a page: 10 newest, then the other 2, then back.
  await filters.getByLabel(/^Action\b/).fill('token.create');
  await pages.getByLabel('Per page').selectOption('10');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  const api = (await (await page.request.get('/api/v1/audit?project=default&action=token.create&limit=200')).json()) as { items: Entry[] };
  expect(api.items.map((e) => e.target_id)).toEqual([...ids].reverse());
  await expect(rows).toHaveCount(10);
  await expect(rows.first()).toContainText(ids[11]!);
  await expect(rows.last()).toContainText(ids[2]!);
  await expect(pages.getByRole('button', { name: 'Newer' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Older' }).click();
  await expect(pages).toContainText('Page 2');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText(ids[1]!);
  await expect(rows.nth(1)).toContainText(ids[0]!);
  await expect(pages.getByRole('button', { name: 'Older' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Newer' }).click();
  await expect(rows).toHaveCount(10);
  await expect(rows.first()).toContainText(ids[11]!);

  // Actor: the last token's name; it did one thing, start the run.
  await filters.getByLabel(/^Action\b/).fill('');
  await filters.getByLabel(/^Actor\b/).fill('audit e2e 12');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first().getByRole('cell')).toHaveText([/./, `${email} (token audit e2e 12)`, 'run.create', `run ${runId}`, /./]);
  await expect(pages).toContainText('Page 1');

  // Time, in whole seconds of the viewer's zone: from the boundary on holds
  // the last six, before it the first six.
  const local = (ms: number) => {
    const d = new Date(ms);
    const p = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  };
  for (const e of api.items) {
    const i = ids.indexOf(e.target_id);
    expect(Date.parse(e.at) >= boundary, `token ${i + 1} at ${e.at}, boundary ${new Date(boundary).toISOString()}`).toBe(i >= 6);
  }
  await filters.getByLabel(/^Actor\b/).fill('');
  await filters.getByLabel(/^Action\b/).fill('token.');
  await filters.getByLabel(/^From\b/).fill(local(boundary));
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(6);
  for (let i = 0; i < 6; i++) await expect(rows.nth(i)).toContainText(ids[11 - i]!);
  await filters.getByLabel(/^From\b/).fill('');
  await filters.getByLabel(/^To\b/).fill(local(boundary));
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(6);
  for (let i = 0; i < 6; i++) await expect(rows.nth(i)).toContainText(ids[5 - i]!);
  await filters.getByLabel(/^From\b/).fill(local(boundary - 60_000));
  await filters.getByLabel(/^To\b/).fill(local(boundary + 60_000));
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(rows).toHaveCount(10);
  await expect(pages.getByRole('button', { name: 'Older' })).toBeEnabled();

  // Until before from: the page says so and sends nothing.
  await filters.getByLabel(/^To\b/).fill(local(boundary - 120_000));
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(filters.getByLabel(/^To\b/)).toHaveAttribute('aria-invalid', 'true');
  await expect(filters).toContainText('Must be after From');

  // A window in the future matches nothing.
  await filters.getByLabel(/^From\b/).fill('2099-01-01T00:00:00');
  await filters.getByLabel(/^To\b/).fill('');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('No entries match these filters.')).toBeVisible();
  await filters.getByRole('button', { name: 'Clear' }).click();
  await expect(filters.getByLabel(/^From\b/)).toHaveValue('');
  await expect(rows).toHaveCount(10);
  await expect(rows.first()).toContainText(/run\.(create|move)/);
});
