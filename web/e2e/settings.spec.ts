import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { port } from '../playwright.config';

// Project settings against the real stack, as an org admin and as a project
// admin who is not one: the organisation's target policy and the project's
// narrowing of it (with the API's refusals next to the field), retention,
// a remote-write endpoint with a bearer token, and agent pools. Every value
// is read back after a reload and from the API. The default project and
// the organisation are put back as they were at the end, for the specs
// that run after this one.

const admin = { email: 'admin@barrage.local', password: process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123' };
const projectAdmin = { email: 'settings-admin@barrage.local', password: 'settings-e2e-password-0123' };
const token = 'e2e-remote-write-token-5b7f0c2d';

type Project = { target_allow_list: string[]; target_allow_granted: string[]; retention: Record<string, number> };

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);
}

async function json<T>(req: APIRequestContext, path: string): Promise<T> {
  const res = await req.get(path);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as T;
}

test('target policy, retention, remote write and agent pools', async ({ page, browser }) => {
  await signIn(page, admin);
  const req = page.request;
  const orgBefore = (await json<{ target_allow_list: string[] }>(req, '/api/v1/org/target-policy')).target_allow_list;
  const before = await json<Project>(req, '/api/v1/projects/default');
  const created = await req.post('/api/v1/users', { data: { email: projectAdmin.email, name: 'Settings Admin', password: projectAdmin.password } });
  expect(created.status(), await created.text()).toBe(201);
  expect((await req.put(`/api/v1/projects/default/members/${projectAdmin.email}`, { data: { role: 'admin' } })).status()).toBe(200);

  try {
    // The org admin widens the organisation's policy with a private range
    // and restricts the project to a pool.
    await page.goto('/settings');
    const org = page.getByRole('form', { name: 'Organisation target policy' });
    const orgEntries = org.getByLabel('Organisation policy entries');
    await expect(orgEntries).toHaveValue(orgBefore.join('\n'));
    await orgEntries.fill([...orgBefore, '10.99.0.0/16'].join('\n'));
    await org.getByRole('button', { name: 'Save organisation policy' }).click();
    await expect(org.getByRole('status')).toHaveText('Saved.');
    const pools = page.getByRole('form', { name: 'Agent pools' });
    await pools.getByLabel('Pools').fill('e2e-blue, Bad_Pool');
    await pools.getByRole('button', { name: 'Save agent pools' }).click();
    await expect(pools.getByLabel('Pools')).toHaveAccessibleDescription(/^"Bad_Pool": a pool is 1 to 63 of a-z, 0-9 and inner dashes/);
    await pools.getByLabel('Pools').fill('e2e-blue');
    await pools.getByRole('button', { name: 'Save agent pools' }).click();
    await expect(pools.getByRole('status')).toHaveText('Saved.');
    await page.reload();
    await expect(orgEntries).toHaveValue([...orgBefore, '10.99.0.0/16'].join('\n'));
    await expect(pools.getByLabel('Pools')).toHaveValue('e2e-blue');
    expect((await json<{ target_allow_list: string[] }>(req, '/api/v1/org/target-policy')).target_allow_list).toEqual([...orgBefore, '10.99.0.0/16']);
    expect(await json(req, '/api/v1/projects/default/agent-pools')).toEqual({ pools: ['e2e-blue'] });

    // The project admin reads the organisation's policy and the pools, and
    // may change neither.
    const ctx = await browser.newContext();
    const pa = await ctx.newPage();
    await signIn(pa, projectAdmin);
    await pa.goto('/settings');
    const paOrg = pa.getByRole('form', { name: 'Organisation target policy' });
    await expect(paOrg.getByLabel('Organisation policy entries')).toHaveValue([...orgBefore, '10.99.0.0/16'].join('\n'));
    await expect(paOrg.getByLabel('Organisation policy entries')).not.toBeEditable();
    await expect(paOrg.getByRole('button')).toHaveCount(0);
    await expect(pa.getByTestId('agent-pools')).toHaveText('Only agents of the pools e2e-blue.');
    await expect(pa.getByRole('form', { name: 'Agent pools' })).toHaveCount(0);

    // Narrowing within the policy is saved; an entry beyond it (403) and
    // one that does not parse (422) are refused next to the list.
    const allow = pa.getByRole('form', { name: 'Project allow list' });
    const list = allow.getByLabel(/^Target allow list/);
    await expect(list).toHaveValue(before.target_allow_list.join('\n'));
    const narrowed = [...before.target_allow_list, '10.99.1.0/24'];
    await list.fill(narrowed.join('\n'));
    await allow.getByRole('button', { name: 'Save allow list' }).click();
    await expect(allow.getByRole('status')).toHaveText('Saved.');
    await pa.reload();
    await expect(list).toHaveValue(narrowed.join('\n'));
    expect((await json<Project>(pa.request, '/api/v1/projects/default')).target_allow_list).toEqual(narrowed);

    const line = narrowed.length + 1;
    await list.fill([...narrowed, '192.168.7.7'].join('\n'));
    await allow.getByRole('button', { name: 'Save allow list' }).click();
    await expect(list).toHaveAttribute('aria-invalid', 'true');
    await expect(list).toHaveAccessibleDescription(
      `line ${line} (192.168.7.7): "192.168.7.7" is outside the organisation's target policy; ask an org admin to add it`,
    );
    await list.fill([...narrowed, '10.99.0.0/33'].join('\n'));
    await allow.getByRole('button', { name: 'Save allow list' }).click();
    await expect(list).toHaveAccessibleDescription(new RegExp(`^line ${line} \\(10\\.99\\.0\\.0/33\\): `));
    expect((await json<Project>(pa.request, '/api/v1/projects/default')).target_allow_list).toEqual(narrowed);

    // Retention: 7 and 30 days, then per-second data kept forever.
    const retention = pa.getByRole('form', { name: 'Retention' });
    await retention.getByLabel('Keep per-second data (days)').fill('7');
    await retention.getByLabel('Keep runs (days)').fill('30');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    await expect(retention.getByRole('status')).toHaveText('Saved.');
    await pa.reload();
    await expect(retention.getByLabel('Keep per-second data (days)')).toHaveValue('7');
    await expect(retention.getByLabel('Keep runs (days)')).toHaveValue('30');
    expect((await json<Project>(pa.request, '/api/v1/projects/default')).retention).toEqual({ interval_retention_days: 7, run_retention_days: 30 });
    await retention.getByLabel('Keep per-second data (days)').fill('');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    await expect(retention.getByRole('status')).toHaveText('Saved.');
    expect((await json<Project>(pa.request, '/api/v1/projects/default')).retention).toEqual({ run_retention_days: 30 });

    // Remote write: an address beyond the policy is refused on the URL; the
    // echo with a bearer token is saved, and the token is never shown again.
    const rw = pa.getByRole('form', { name: 'Remote-write endpoint' });
    await expect(pa.getByTestId('remote-write-stored')).toHaveText('Not configured: no run figures leave Barrage.');
    await rw.getByLabel('Endpoint URL').fill('http://192.168.7.7:9090/api/v1/write');
    await rw.getByRole('radio', { name: 'Bearer token' }).check();
    await rw.getByLabel('Token', { exact: true }).fill(token);
    await rw.getByRole('button', { name: 'Save remote write' }).click();
    await expect(rw.getByLabel('Endpoint URL')).toHaveAttribute('aria-invalid', 'true');
    await expect(rw.getByLabel('Endpoint URL')).toHaveAccessibleDescription(/192\.168\.7\.7/);
    const url = `http://127.0.0.1:${port + 1}/api/v1/write`;
    await rw.getByLabel('Endpoint URL').fill(url);
    await rw.getByRole('button', { name: 'Save remote write' }).click();
    await expect(rw.getByRole('status')).toHaveText('Saved.');
    await pa.reload();
    const stored = pa.getByTestId('remote-write-stored');
    await expect(stored).toContainText(url);
    await expect(stored).toContainText('Bearer token set');
    await expect(rw.getByLabel('Endpoint URL')).toHaveValue(url);
    await expect(rw.getByLabel('Token', { exact: true })).toHaveValue('');
    await expect(rw.getByLabel('Token', { exact: true })).toHaveAttribute('placeholder', 'set: enter it again to save');
    expect(await pa.content()).not.toContain(token);
    const got = await pa.request.get('/api/v1/projects/default/remote-write');
    const body = await got.text();
    expect(body).not.toContain(token);
    expect(JSON.parse(body)).toMatchObject({ url, auth: 'bearer', enabled: true, header_names: [] });

    // A save without the token again is refused before it would drop it.
    await rw.getByRole('button', { name: 'Save remote write' }).click();
    await expect(rw.getByLabel('Token', { exact: true })).toHaveAccessibleDescription(/^a token is set; the API never shows it: enter it again to save/);

    // Removing it takes a confirmation.
    await pa.getByRole('button', { name: 'Remove remote write…' }).click();
    const confirm = pa.getByRole('group', { name: 'Confirm removal of the remote-write endpoint' });
    await confirm.getByRole('button', { name: 'Keep' }).click();
    expect((await pa.request.get('/api/v1/projects/default/remote-write')).status()).toBe(200);
    await pa.getByRole('button', { name: 'Remove remote write…' }).click();
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await expect(stored).toHaveText('Not configured: no run figures leave Barrage.');
    expect((await pa.request.get('/api/v1/projects/default/remote-write')).status()).toBe(404);
    await ctx.close();
  } finally {
    expect((await req.put('/api/v1/org/target-policy', { data: { target_allow_list: orgBefore } })).status()).toBe(200);
    expect((await req.put('/api/v1/projects/default/agent-pools', { data: { pools: [] } })).status()).toBe(200);
    const restored = await req.patch('/api/v1/projects/default', { data: { target_allow_list: before.target_allow_list, retention: before.retention } });
    expect(restored.status(), await restored.text()).toBe(200);
    expect([204, 404]).toContain((await req.delete('/api/v1/projects/default/remote-write')).status());
  }
  const after = await json<Project>(req, '/api/v1/projects/default');
  expect(after.target_allow_list).toEqual(before.target_allow_list);
  expect(after.target_allow_granted).toEqual(before.target_allow_granted);
});
