import { expect, test, type Locator, type Page } from '@playwright/test';
import { port } from '../playwright.config';

// A keyboard-only journey against the real stack: sign in, open the New run
// form from the navigation, fill it and start the run, watch its live view,
// then go back to the runs list, pick it and another run and compare them.
// Only keys are pressed (Tab, Shift+Tab, Enter, Space, typing); every control
// on the way is reached by Tab and shows a focus ring when it has focus.
//
// Tagged @own-stack: it adds runs to the default project, which other specs
// count from empty, so make e2e runs it on a stack of its own.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const echo = `http://127.0.0.1:${port + 1}/`;

/** hasFocusRing tells whether the focused element, or the label that draws it, shows an outline or a shadow. */
function hasFocusRing(target: Locator): Promise<boolean> {
  return target.evaluate((el) => {
    const drawn = (e: Element | null) => {
      if (!e) return false;
      const s = getComputedStyle(e);
      return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
    };
    return drawn(el) || drawn(el.closest('label'));
  });
}

/**
 * tabTo presses Tab (Shift+Tab when back) until target has focus, failing
 * when it is not reached within max presses, then checks its focus ring.
 */
async function tabTo(page: Page, target: Locator, { back = false, max = 60 } = {}) {
  await expect(target).toBeVisible();
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if (await target.evaluate((el) => el === document.activeElement)) {
      expect(await hasFocusRing(target), `focus ring on ${target}`).toBe(true);
      return;
    }
  }
  throw new Error(`${target} not reached in ${max} presses of ${back ? 'Shift+Tab' : 'Tab'}`);
}

/** typeInto tabs to a text field, clears it with the keyboard and types value. */
async function typeInto(page: Page, field: Locator, value: string, opts?: { back?: boolean }) {
  await tabTo(page, field, opts);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(value);
  await expect(field).toHaveValue(value);
}

test('start a run, watch it live and compare it, by keyboard only @own-stack', async ({ page }) => {
  test.setTimeout(180_000);

  // Sign in.
  await page.goto('/sign-in');
  await typeInto(page, page.getByLabel('Email'), email);
  await typeInto(page, page.getByLabel('Password'), password);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/runs$/);

  // The other run of the comparison, started through the API.
  const res = await page.request.post('/api/v1/runs', { data: { project: 'default', name: 'keyboard baseline', spec: { url: echo, qps: 50, duration: '2s' } } });
  expect(res.status(), await res.text()).toBe(201);
  const baseline = ((await res.json()) as { id: string }).id;

  // New run from the navigation.
  const nav = page.getByRole('navigation', { name: 'Main' });
  await tabTo(page, nav.getByRole('link', { name: 'New run' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'New run' })).toBeVisible();

  await typeInto(page, page.locator('[name="url"]'), echo);
  await typeInto(page, page.locator('[name="name"]'), 'keyboard journey');
  await typeInto(page, page.locator('[name="qps"]'), '40');
  await typeInto(page, page.locator('[name="duration"]'), '8s');
  await tabTo(page, page.getByRole('button', { name: 'Start run' }));
  await page.keyboard.press('Enter');

  // Its live view.
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const id = page.url().split('/').pop()!;
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('keyboard journey');
  const seconds = async () => Number((await page.getByTestId('live-points').textContent())?.match(/\d+/)?.[0] ?? 0);
  await expect.poll(seconds, { timeout: 30_000 }).toBeGreaterThan(1);
  await expect(page.getByTestId('live-chart')).toBeVisible();
  // A chart's table view opens with the keyboard and holds the seconds received.
  const qps = page.getByRole('region', { name: 'Requests per second', exact: true });
  await tabTo(page, qps.getByText('Table view'));
  await page.keyboard.press('Enter');
  await expect(qps.getByRole('table').locator('tbody tr')).not.toHaveCount(0);

  // Back to the runs list; pick the two runs; compare.
  await tabTo(page, nav.getByRole('link', { name: 'Runs', exact: true }), { back: true });
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/runs$/);
  const journey = page.getByLabel('Select keyboard journey to compare');
  await tabTo(page, journey);
  await page.keyboard.press('Space');
  await expect(journey).toBeChecked();
  const other = page.getByLabel('Select keyboard baseline to compare');
  await tabTo(page, other);
  await page.keyboard.press('Space');
  await expect(other).toBeChecked();
  await tabTo(page, page.getByRole('button', { name: 'Compare (2)' }), { back: true });
  await page.keyboard.press('Enter');

  await expect(page).toHaveURL(new RegExp(`/compare\\?ids=(${id},${baseline}|${baseline},${id})$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Compare runs' })).toBeVisible();
  await expect(page.getByRole('main').getByText('keyboard journey').first()).toBeVisible();
  await expect(page.getByRole('main').getByText('keyboard baseline').first()).toBeVisible();
});
