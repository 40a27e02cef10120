import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { port } from '../playwright.config';
import { signIn } from './sign-in';

// The New run page's scenario form against the real stack
// (docs/scenarios.md): a document that is not YAML is refused in the
// browser; one the API refuses (a variable no step sets) comes back as the
// API's error under the document, with the step's path; a threshold on a
// step the scenario lacks comes back under the thresholds by line; fixed,
// it starts a run of 10 iterations on the stack's agents, judged by a step
// threshold and a check threshold, and the run page shows its steps and
// verdict. The form passes axe.

const echo = `http://127.0.0.1:${port + 1}/`;

const scenario = (variable: string) => `name: e2e form flow
steps:
  - name: login
    method: POST
    url: ${echo}login?header=X-Token:tok-{{.iteration}}
    extract: [{var: token, header: X-Token}]
    checks: [{name: login ok, status: [200]}]
  - name: read
    url: ${echo}read?t={{.${variable}}}
    checks: [{name: read ok, status: [200]}]
`;

test('the scenario form starts a scenario run and shows the API errors by step', async ({ page }) => {
  await signIn(page);
  await page.goto('/runs/new');
  await page.getByRole('radio', { name: 'A scenario of steps' }).check();
  await expect(page).toHaveURL(/\/runs\/new\?kind=scenario$/);
  const form = page.getByRole('form', { name: 'New scenario run' });
  const doc = form.locator('[name="scenario"]');

  await doc.fill('steps: [');
  await form.getByRole('button', { name: 'Start scenario run' }).click();
  await expect(doc).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByTestId('scenario-errors')).toContainText('Not YAML or JSON');

  await doc.fill(scenario('tokn'));
  await form.locator('[name="name"]').fill('e2e scenario form');
  await form.locator('[name="rate"]').fill('20');
  await form.locator('[name="connections"]').fill('2');
  await form.locator('[name="count"]').fill('10');
  await form.getByRole('button', { name: 'Start scenario run' }).click();
  await expect(form.getByTestId('scenario-errors')).toContainText('steps[1].url: unknown variable "tokn"');
  await expect(page).toHaveURL(/kind=scenario$/);
  const res = await new AxeBuilder({ page }).include('form').analyze();
  expect(res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  await doc.fill(scenario('token'));
  const thresholds = form.locator('[name="thresholds"]');
  await thresholds.fill('step("nope").count == 10');
  await form.getByRole('button', { name: 'Start scenario run' }).click();
  await expect(thresholds).toHaveAttribute('aria-invalid', 'true');
  await expect(form).toContainText('line 1: the scenario has no step named "nope"');

  await thresholds.fill('step("read").count == 10\nchecks("read ok") == 100%');
  await form.getByRole('button', { name: 'Start scenario run' }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('e2e scenario form');
  const region = page.getByRole('region', { name: 'Scenario steps' });
  await expect(region.getByTestId('scenario-iterations')).toContainText('10 iterations started, 10 completed, 0 failed', { timeout: 60_000 });
  await expect(region.getByRole('row')).toHaveCount(3);
  await expect(page.getByTestId('run-verdict')).toHaveText('verdict: pass');
  await expect(page.getByTestId('run-thresholds').getByTestId('threshold-outcome')).toHaveText(['pass', 'pass']);
});

// A data file attached to the form (docs/scenarios.md, "Data files"): a
// malformed one comes back from the API next to the file input with its
// line; a good one, split over the stack's two agents, sets each
// iteration's {{.code}}, which the echo answers with, so the steps table
// counts every row's code; the run carries the form's labels.
test('the scenario form sends a data file and labels', async ({ page }) => {
  await signIn(page);
  await page.goto('/runs/new?kind=scenario');
  const form = page.getByRole('form', { name: 'New scenario run' });
  await form.locator('[name="scenario"]').fill(`name: e2e data rows
steps:
  - name: coded
    url: ${echo}coded?status={{.code}}
    checks: [{name: answered, status: [200, 201, 202, 203]}]
`);
  await form.locator('[name="name"]').fill('e2e scenario data');
  await form.locator('[name="rate"]').fill('20');
  await form.locator('[name="connections"]').fill('2');
  await form.locator('[name="count"]').fill('8');
  await form.locator('[name="labels"]').fill('suite=e2e-data');
  const file = form.locator('[name="data"]');
  await expect(form.locator('[name="data-split"]')).toBeDisabled();

  await file.setInputFiles({ name: 'codes.csv', mimeType: 'text/csv', buffer: Buffer.from('code\n200\n201,x\n') });
  await expect(form.getByTestId('data-file')).toHaveText(/^codes\.csv: CSV, 15 bytes/);
  await form.getByRole('button', { name: 'Start scenario run' }).click();
  await expect(file).toHaveAttribute('aria-invalid', 'true');
  await expect(form).toContainText('line 3: wrong number of fields');
  await expect(page).toHaveURL(/kind=scenario$/);

  await file.setInputFiles({ name: 'codes.csv', mimeType: 'text/csv', buffer: Buffer.from('code\n200\n201\n202\n203\n') });
  await form.locator('[name="data-split"]').check();
  const res = await new AxeBuilder({ page }).include('form').analyze();
  expect(res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await form.getByRole('button', { name: 'Start scenario run' }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('e2e scenario data');
  await expect(page.getByText('suite=e2e-data')).toBeVisible();
  const region = page.getByRole('region', { name: 'Scenario steps' });
  await expect(region.getByTestId('scenario-iterations')).toContainText('8 iterations started, 8 completed, 0 failed', { timeout: 60_000 });
  await expect(region.getByRole('row').nth(1)).toContainText('200 ×2, 201 ×2, 202 ×2, 203 ×2');
});

// The form's TLS fields reach the https:// steps: the stack's second echo
// serves HTTPS on PORT+5 with a self-signed certificate (e2e/stack). A CA
// that is not a certificate comes back from the API next to its input; -k
// shows its warning; with the echo's certificate as the CA every
// iteration's h2 step and HTTP/1.1 step answer 200 over TLS, and the run's
// spec keeps the CA.
test('the scenario form sends TLS settings to the https steps', async ({ page }) => {
  const cert = readFileSync(`/tmp/barrage-e2e-${port}-tls/cert.pem`, 'utf8').trim();
  const https = `https://127.0.0.1:${port + 5}/`;
  await signIn(page);
  await page.goto('/runs/new?kind=scenario');
  const form = page.getByRole('form', { name: 'New scenario run' });
  await form.locator('[name="scenario"]').fill(`name: e2e tls steps
steps:
  - name: over h2
    protocol: h2
    url: ${https}debug
    checks: [{name: saw h2, body_matches: ' HTTP/2\\.0\\n'}]
  - name: over http/1.1
    url: ${https}read
    checks: [{name: read ok, status: [200]}]
`);
  await form.locator('[name="name"]').fill('e2e scenario tls');
  await form.locator('[name="rate"]').fill('20');
  await form.locator('[name="connections"]').fill('2');
  await form.locator('[name="count"]').fill('4');

  const ca = form.locator('[name="caCert"]');
  await ca.fill('not a certificate');
  await form.getByRole('button', { name: 'Start scenario run' }).click();
  await expect(ca).toHaveAttribute('aria-invalid', 'true');
  await expect(form).toContainText('holds no PEM certificate');
  await expect(page).toHaveURL(/kind=scenario$/);

  const insecure = form.getByRole('checkbox', { name: 'Skip certificate verification (-k)' });
  await insecure.check();
  await expect(form.getByRole('note')).toContainText('Certificate verification is off (-k)');
  const res = await new AxeBuilder({ page }).include('form').analyze();
  expect(res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await insecure.uncheck();

  await ca.fill(cert);
  const created = page.waitForResponse((r) => r.url().endsWith('/api/v1/runs') && r.request().method() === 'POST');
  await form.getByRole('button', { name: 'Start scenario run' }).click();
  const run = (await (await created).json()) as { spec: { insecure?: boolean; tls?: { ca_cert?: string } } };
  expect(run.spec.insecure).toBeUndefined();
  expect(run.spec.tls?.ca_cert?.trim()).toBe(cert);
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const region = page.getByRole('region', { name: 'Scenario steps' });
  await expect(region.getByTestId('scenario-iterations')).toContainText('4 iterations started, 4 completed, 0 failed', { timeout: 60_000 });
  await expect(region.getByRole('row').nth(1)).toContainText('200 ×4');
  await expect(region.getByRole('row').nth(2)).toContainText('200 ×4');
});
