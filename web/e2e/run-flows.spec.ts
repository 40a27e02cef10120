import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { port } from '../playwright.config';

// What a daily user does from a run's page, against the real stack and by
// keyboard: open its test's trend, run it again (a new run with the same
// spec, opened at once), save it as a test (the API's refusal of the name
// shown under the name), and find runs in the compare page's picker by
// name or id, or by its test's previous run; axe finds nothing serious in the states these add.
//
// Tagged @own-stack: it adds runs and a test to the default project, which
// other specs count from empty, so make e2e runs it on a stack of its own.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;

type Run = { id: string; name: string; status: string; source: string; test_id?: string; spec: Record<string, unknown>; labels: Record<string, string>; thresholds: string[] };

async function post<T>(req: APIRequestContext, path: string, data: unknown, status = 201): Promise<T> {
  const res = await req.post(path, { data });
  expect(res.status(), `${path}: ${await res.text()}`).toBe(status);
  return (await res.json()) as T;
}

async function getRun(req: APIRequestContext, id: string): Promise<Run> {
  const res = await req.get(`/api/v1/runs/${id}`);
  expect(res.status()).toBe(200);
  return (await res.json()) as Run;
}

async function waitCompleted(req: APIRequestContext, id: string) {
  await expect.poll(async () => (await getRun(req, id)).status, { timeout: 60_000 }).toBe('completed');
}

/** axe lists the page's serious and critical axe violations, one line each. */
async function axe(page: Page): Promise<string[]> {
  const res = await new AxeBuilder({ page }).analyze();
  return res.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/** press focuses target and presses key, as a keyboard user who tabbed there would. */
async function press(page: Page, target: Locator, key = 'Enter') {
  await target.focus();
  await expect(target).toBeFocused();
  await page.keyboard.press(key);
}

test('run again, save as test, the test trend and the picker search @own-stack', async ({ page }) => {
  test.setTimeout(180_000);
  expect((await page.request.post('/api/v1/auth/login', { data: { email, password } })).status()).toBe(200);
  const req = page.request;

  // A stored test, run once; and a run whose header is a secret the API does not store.
  const spec = { url: `${echo}?delay=1ms`, qps: 40, duration: '1s', connections: 2 };
  const stored = await post<{ id: string; name: string }>(req, '/api/v1/tests', {
    project: 'default', name: 'flows checkout', spec, labels: { suite: 'flows' }, thresholds: ['error_rate < 50%'],
  });
  const first = await post<Run>(req, '/api/v1/runs', { test: stored.id, name: 'flows first' });
  const secret = await post<Run>(req, '/api/v1/runs', {
    project: 'default', name: 'flows secret', spec: { url: echo, qps: 20, duration: '1s', headers: ['Authorization: Bearer s3cret'] },
  });
  for (const r of [first, secret]) await waitCompleted(req, r.id);
  // The test's next run, for the picker's "previous run of its test".
  const next = await post<Run>(req, '/api/v1/runs', { test: stored.id, name: 'flows next' });
  await waitCompleted(req, next.id);
  const firstRun = await getRun(req, first.id);
  expect(firstRun.test_id).toBe(stored.id);

  // The run names its test and links to its trend, which the test page scrolls to.
  await page.goto(`/runs/${first.id}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('flows first');
  const testLine = page.getByTestId('run-test');
  await expect(testLine.getByRole('link', { name: 'flows checkout', exact: true })).toHaveAttribute('href', `/tests/${stored.id}`);
  await press(page, testLine.getByRole('link', { name: 'Trend of flows checkout' }));
  await expect(page).toHaveURL(new RegExp(`/tests/${stored.id}#trend$`));
  await expect(page.locator('#trend')).toBeFocused();
  await expect(page.locator('#trend').getByRole('heading', { name: 'Trend' })).toBeInViewport();
  await expect(page.getByTestId('test-trend')).toBeVisible();

  // Run again: a new run with the same spec, name, labels and thresholds, opened at once.
  await page.goto(`/runs/${first.id}`);
  await press(page, page.getByRole('button', { name: 'Run again' }));
  await expect(page).not.toHaveURL(new RegExp(first.id));
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const againId = page.url().split('/').pop()!;
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('flows first');
  const again = await getRun(req, againId);
  expect(again.spec).toEqual(firstRun.spec);
  expect(again.labels).toEqual(firstRun.labels);
  expect(again.thresholds).toEqual(['error_rate < 50%']);
  expect(again.source).toBe('ui');
  await waitCompleted(req, againId);
  await expect(page.getByTestId('run-status')).toHaveText('completed');

  // A spec whose secret was not stored asks first, naming where it was.
  await page.goto(`/runs/${secret.id}`);
  await press(page, page.getByRole('button', { name: 'Run again' }));
  const confirm = page.getByRole('group', { name: 'Confirm run again' });
  await expect(confirm).toContainText('Its secrets were not stored (spec.headers.0)');
  expect(await axe(page), 'axe with the confirmation shown').toEqual([]);
  await press(page, confirm.getByRole('button', { name: 'Cancel' }));
  await expect(page.getByRole('button', { name: 'Run again' })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/runs/${secret.id}$`));

  // Save as test: a blank name is the API's 422, shown under the name; then a good one.
  await page.goto(`/runs/${againId}`);
  await press(page, page.getByRole('button', { name: 'Save as test' }));
  const form = page.getByRole('form', { name: 'Save as test' });
  const name = form.getByLabel('Test name');
  await expect(name).toBeFocused();
  await expect(name).toHaveValue('flows first');
  const refused = await req.post('/api/v1/tests', { data: { project: 'default', name: '   ', spec } });
  expect(refused.status()).toBe(422);
  const problem = (await refused.json()) as { errors: { field: string; message: string }[] };
  const nameError = problem.errors.find((e) => e.field === 'name')!;
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('   ');
  await page.keyboard.press('Enter');
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('alert')).toHaveText(nameError.message);
  await expect(name).toHaveAccessibleDescription(nameError.message);
  expect(await axe(page), 'axe with the name refused').toEqual([]);
  await page.screenshot({ path: test.info().outputPath('save-as-test-refused.png') });
  await name.focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('flows saved');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/tests\/[0-9a-f-]{36}$/);
  const savedId = page.url().split('/').pop()!;
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('flows saved');
  const saved = (await (await req.get(`/api/v1/tests/${savedId}`)).json()) as { name: string; spec: unknown; labels: unknown; thresholds: string[] };
  expect(saved).toMatchObject({ name: 'flows saved', spec: again.spec, labels: { suite: 'flows' }, thresholds: ['error_rate < 50%'] });

  // The compare picker's search: by name, by id tail, by label; ticked runs stay.
  await page.goto('/compare');
  const list = page.getByRole('list', { name: 'Recent completed runs' });
  const count = page.getByTestId('picker-count');
  await expect(count).toHaveText(/^\d+ runs$/);
  const total = Number((await count.textContent())!.match(/\d+/)![0]);
  expect(total).toBeGreaterThanOrEqual(3);
  const search = page.getByLabel('Search runs');
  await search.fill('flows first');
  await expect(count).toHaveText(`2 of ${total} runs`);
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await search.fill(againId.slice(-6));
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await press(page, list.getByRole('checkbox'), 'Space');
  await expect(list.getByRole('checkbox')).toBeChecked();
  await search.fill('flows secret');
  // The ticked run stays listed beside the match.
  await expect(list.getByRole('listitem')).toHaveCount(2);
  await press(page, list.getByRole('listitem').filter({ hasText: 'flows secret' }).getByRole('checkbox'), 'Space');
  await search.fill('no such run');
  await expect(count).toHaveText(`0 of ${total} runs`);
  await expect(page.getByText('No recent completed run matches “no such run”.')).toBeVisible();
  await expect(list.getByRole('listitem')).toHaveCount(2);
  expect(await axe(page), 'axe on the picker with a search').toEqual([]);
  await press(page, page.getByRole('button', { name: 'Compare 2 runs' }));
  await expect(page).toHaveURL(new RegExp(`/compare\\?ids=${againId},${secret.id}$`));
  await expect(page.getByTestId('compare-layout')).toBeVisible();

  // From a test's run, the picker offers the test's previous run as the baseline.
  await page.goto(`/compare?ids=${next.id}`);
  const previous = page.getByRole('button', { name: 'Add the previous run of its test as the baseline: flows first' });
  await press(page, previous);
  await expect(page.getByRole('listitem').filter({ hasText: 'flows next' }).getByRole('checkbox')).toBeChecked();
  await expect(page.getByRole('listitem').filter({ hasText: 'flows next' })).toContainText('#2');
  // The first run of the test has no earlier one: the offer is gone.
  await expect(previous).toHaveCount(0);
  await press(page, page.getByRole('button', { name: 'Compare 2 runs' }));
  await expect(page).toHaveURL(new RegExp(`/compare\\?ids=${first.id},${next.id}$`));
});
