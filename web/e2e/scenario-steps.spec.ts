import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';
import { signIn } from './sign-in';

// A scenario run's page against the real stack (docs/scenarios.md): 20
// iterations of three steps on the stack's two agents against its echo. The
// login's response carries a token in a header (the echo's header=
// parameter), the read sends it back, and the create step's check wants a
// 201 the echo does not send. The page shows the iterations and a row per
// step with its exact counts and the failed check by name, and its
// iterations per second adding up to the 20 started and failed; it passes axe.
// A second run of the same scenario, closed-loop (2 virtual users, 10
// iterations), is compared with it: the compare page matches the steps by
// name and shows each run's counts and errors.

const echo = `http://127.0.0.1:${port + 1}/`;

test('a scenario run shows its iterations and a row per step', async ({ page }) => {
  await signIn(page);
  const scenario = {
    name: 'e2e login flow',
    steps: [
      {
        name: 'login',
        method: 'POST',
        url: `${echo}login?header=X-Token:tok-{{.iteration}}`,
        extract: [{ var: 'token', header: 'X-Token' }],
        checks: [{ name: 'login ok', status: [200] }],
      },
      { name: 'read', url: `${echo}read?t={{.token}}&delay=2ms`, checks: [{ name: 'read ok', status: [200] }] },
      { name: 'create', url: `${echo}items?n={seq}`, continue_on_failure: true, checks: [{ name: 'created', status: [201] }] },
    ],
  };
  const created = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name: 'e2e scenario', spec: { scenario, iterations_per_second: 20, count: 20, connections: 4 } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');

  await page.goto(`/runs/${id}`);
  const region = page.getByRole('region', { name: 'Scenario steps' });
  await expect(region.getByTestId('scenario-iterations')).toContainText('20 iterations started, 0 completed, 20 failed (100%)');
  const rows = region.getByRole('row');
  await expect(rows).toHaveCount(4);
  const cells = async (i: number) => (await rows.nth(i).locator('th, td').allInnerTexts()).map((s) => s.trim());
  expect((await cells(1)).slice(0, 4)).toEqual(['login', '20', '0', '0']);
  expect((await cells(2)).slice(0, 4)).toEqual(['read', '20', '0', '0']);
  expect((await cells(3)).slice(0, 4)).toEqual(['create', '20', '20', '0']);
  await expect(rows.nth(3)).toContainText('failed checks: created ×20');
  await expect(rows.nth(1)).toContainText('200 ×20');
  // Iterations per second: the chart's table adds up to the 20 started, all failed, none completed.
  const perSecond = page.getByRole('region', { name: 'Iterations per second' });
  await expect(perSecond.getByRole('heading', { name: 'Iterations per second' })).toBeVisible();
  await expect(perSecond).toContainText('target 20 started/s');
  await perSecond.getByText('Table view').click();
  // Polled: the table is drawn (empty) before the run's seconds have arrived.
  const sums = () =>
    perSecond.locator('table tbody tr').evaluateAll((trs) => [1, 2, 3].map((c) => trs.reduce((n, tr) => n + Number(tr.children[c]?.textContent ?? 'NaN'), 0)));
  await expect.poll(sums).toEqual([20, 0, 20]);
  const res = await new AxeBuilder({ page }).include('[aria-label="Scenario steps"]').include('[aria-label="Iterations per second"]').analyze();
  expect(res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  const closed = await page.request.post('/api/v1/runs', {
    data: { project: 'default', name: 'e2e scenario closed', spec: { scenario, count: 10, connections: 2 } },
  });
  expect(closed.status(), await closed.text()).toBe(201);
  const { id: closedId } = (await closed.json()) as { id: string };
  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${closedId}`)).json()) as { status: string }).status, { timeout: 60_000 })
    .toBe('completed');
  await page.goto(`/compare?ids=${id},${closedId}`);
  const steps = page.getByTestId('compare-steps');
  await expect(steps.getByTestId('steps-iterations').getByRole('cell')).toHaveText([/20 started · 20 failed/, /10 started · 10 failed/]);
  await expect(steps.getByTestId('step-login').getByRole('cell')).toHaveText([/20 requests · 0 errors/, /10 requests · 0 errors/]);
  await expect(steps.getByTestId('step-create').getByRole('cell')).toHaveText([/20 requests · 20 errors/, /10 requests · 10 errors/]);
  await expect(steps.getByTestId('step-create').getByRole('cell').nth(1)).toContainText(/\((=|[+−].+%)\)/);
});
