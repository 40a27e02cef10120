import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { port } from '../playwright.config';

// The New run form's TLS section against the real stack: the stack's second
// echo serves HTTPS on PORT+5 with a self-signed certificate (e2e/stack). The
// form verifies it with that certificate as the CA and SNI localhost, sends a
// client certificate and key, shows the API's refusal of a key that is not
// the certificate's beside the key, and the run completes with every request
// a 200 over TLS. The stored spec keeps the TLS fields, with the client
// certificate and key REDACTED: the key is never returned. axe finds nothing
// serious in the open section, with its -k warning and with an error.

const email = 'admin@barrage.local';
const password = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const tlsDir = `/tmp/barrage-e2e-${port}-tls`;
const target = `https://127.0.0.1:${port + 5}/?size=64`;

/** seriousAxe lists axe's serious and critical violations on the page as it is. */
async function seriousAxe(page: Page): Promise<string[]> {
  const res = await new AxeBuilder({ page }).analyze();
  return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

type Spec = { url: string; insecure?: boolean; tls?: Record<string, unknown> };
type Run = { id: string; status: string; spec: Spec };
type Result = { count: number; errors: number; ret_codes: Record<string, number>; phases?: Record<string, { count: number }> };

test('TLS fields: CA, SNI, client certificate and key, minimum version; the key is not returned', async ({ page }) => {
  const cert = readFileSync(`${tlsDir}/cert.pem`, 'utf8').trim();
  const key = readFileSync(`${tlsDir}/key.pem`, 'utf8').trim();
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().trim();

  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);

  await page.goto('/runs/new');
  await page.locator('[name="url"]').fill(target);
  await page.locator('[name="name"]').fill('e2e tls form');
  await page.locator('[name="qps"]').fill('20');
  await page.locator('[name="connections"]').fill('2');
  await page.locator('[name="duration"]').fill('2s');

  await page.getByText(/^TLS: certificates/).click();
  const insecure = page.getByRole('checkbox', { name: /Skip certificate verification/ });
  await expect(insecure).not.toBeChecked(); // verification is on by default
  await insecure.check();
  await expect(page.getByRole('note')).toContainText('Certificate verification is off (-k)');
  expect(await seriousAxe(page), 'axe on the open TLS section with its warning').toEqual([]);
  await insecure.uncheck();
  await expect(page.getByRole('note')).toHaveCount(0);

  await page.locator('[name="tls.ca_cert"]').fill(cert);
  await page.locator('[name="tls.client_cert"]').fill(cert);
  await page.locator('[name="tls.client_key"]').fill(otherKey);
  await page.locator('[name="tls.server_name"]').fill('localhost');
  await page.locator('[name="tls.alpn"]').selectOption('http/1.1');
  await page.locator('[name="tls.min_version"]').selectOption('1.3');

  // The API refuses a key that is not the certificate's, beside the key.
  await page.getByTestId('start-run').click();
  const keyInput = page.locator('[name="tls.client_key"]');
  await expect(keyInput).toHaveAttribute('aria-invalid', 'true');
  await expect(keyInput).toHaveAccessibleDescription(/does not match tls\.client_cert/);
  await expect(page.locator('[name="tls.client_cert"]')).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page).toHaveURL(/\/runs\/new$/);
  expect(await seriousAxe(page), 'axe on the TLS section with an error').toEqual([]);

  // An unknown key exchange group is refused beside its input.
  await keyInput.fill(key);
  const curves = page.locator('[name="tls.curves"]');
  await curves.fill('P-256, x448');
  await page.getByTestId('start-run').click();
  await expect(curves).toHaveAttribute('aria-invalid', 'true');
  await expect(curves).toHaveAccessibleDescription(/“x448”: value is not one of the allowed values/);
  await expect(page).toHaveURL(/\/runs\/new$/);

  await curves.fill('X25519, P-256');
  await page.getByTestId('start-run').click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const id = page.url().split('/').pop()!;

  await expect
    .poll(async () => ((await (await page.request.get(`/api/v1/runs/${id}`)).json()) as Run).status, { timeout: 60_000 })
    .toBe('completed');
  const res = await page.request.get(`/api/v1/runs/${id}`);
  const text = await res.text();
  const run = JSON.parse(text) as Run;
  expect(run.spec.url).toBe(target);
  expect(run.spec.insecure).toBeUndefined();
  expect(run.spec.tls).toEqual({
    ca_cert: cert,
    client_cert: 'REDACTED',
    client_key: 'REDACTED',
    server_name: 'localhost',
    alpn: 'http/1.1',
    min_version: '1.3',
    curves: ['X25519', 'P-256'],
  });
  expect(text).not.toContain('PRIVATE KEY');
  expect(text).not.toContain(key.split('\n')[1]);

  // Verified with the CA and SNI: every request a 200, each connection's handshake timed.
  const result = (await (await page.request.get(`/api/v1/runs/${id}/result`)).json()) as Result;
  expect(result.count).toBeGreaterThan(20);
  expect(result.errors).toBe(0);
  expect(result.ret_codes['200']).toBe(result.count);
  expect(result.phases?.tls?.count).toBeGreaterThan(0);

  // The run page shows the spec without the key either.
  await page.goto(`/runs/${id}`);
  await expect(page.getByRole('heading', { name: 'e2e tls form' })).toBeVisible();
  await expect(page.locator('body')).not.toContainText('PRIVATE KEY');
});
