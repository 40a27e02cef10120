import { expect, test, type Page } from '@playwright/test';
import { port } from '../playwright.config';

// Users against the real stack: the org admin creates a user (a generated
// password shown once), finds it, resets its password and copies the new
// one, with which the user signs in from another browser; disabled, the user
// is signed out and refused; and the organisation's last org admin keeps the
// role (the API's 409, shown in the dialog).

const adminEmail = 'admin@barrage.local';
const adminPassword = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';
const email = 'e2e-user@barrage.test';

// emailCell matches the email cell of one user's row, and no other whose
// email merely contains it (other specs add settings-admin@barrage.local);
// the signed-in user's own row says "(you)".
function emailCell(address: string): RegExp {
  return new RegExp(`^${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\(you\\))?$`);
}

async function signIn(page: Page, who: string, password: string) {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(who);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test('create a user, reset the password, disable the user; keep the last org admin', async ({ page, context, browser }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
  await signIn(page, adminEmail, adminPassword);
  await expect(page).toHaveURL(/\/runs$/);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
  await expect(page.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();

  // Create, with a generated password shown once.
  const form = page.getByRole('form', { name: 'Create user' });
  await form.getByLabel('Email').fill(email);
  await form.getByLabel(/^Name/).fill('E2E User');
  await form.getByRole('button', { name: 'Create user' }).click();
  const created = page.getByRole('region', { name: `User ${email} created` });
  const first = await created.getByRole('textbox', { name: 'New password' }).inputValue();
  expect(first.length).toBeGreaterThanOrEqual(12);
  await created.getByRole('button', { name: 'Done' }).click();
  await expect(created).toHaveCount(0);

  // Listed, and found by a search.
  const table = page.getByRole('table', { name: 'Users' });
  const row = table.getByRole('row').filter({ has: page.getByRole('cell', { name: emailCell(email) }) });
  await expect(row).toHaveCount(1);
  await page.getByRole('searchbox', { name: 'Email or name contains' }).fill('E2E user');
  await page.getByRole('searchbox', { name: 'Email or name contains' }).press('Enter');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(row.getByRole('cell')).toHaveText([email, 'E2E User', 'member', 'active', 'none', /\d/, 'never', /Disable…/]);

  // Reset: confirm, then the new password once, copied.
  const resetButton = row.getByRole('button', { name: `Reset password ${email}` });
  await resetButton.click();
  const confirm = page.getByRole('dialog', { name: `Reset the password of ${email}?` });
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Reset password' }).click();
  const shown = page.getByRole('dialog', { name: `New password of ${email}` });
  const password = await shown.getByRole('textbox', { name: 'New password' }).inputValue();
  expect(password.length).toBeGreaterThanOrEqual(12);
  expect(password).not.toBe(first);
  await shown.getByRole('button', { name: 'Copy password' }).click();
  await expect(shown.getByRole('status')).toHaveText('Copied to the clipboard');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(password);
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(resetButton).toBeFocused();
  await expect(page.getByText(password)).toHaveCount(0);

  // The user signs in with it in a browser of their own; the first password no longer works.
  const theirs = await browser.newContext();
  const them = await theirs.newPage();
  expect((await them.request.post('/api/v1/auth/login', { data: { email, password: first } })).status()).toBe(401);
  await signIn(them, email, password);
  await expect(them).toHaveURL(/\/runs$/);
  await expect(them.getByRole('navigation', { name: 'Main' })).toContainText('E2E User');
  await expect(them.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' })).toHaveCount(0);
  await page.reload();
  await expect(row.getByRole('cell').nth(6)).toHaveText(/^\d+ s ago$/);

  // Disable: their session ends at once and they cannot sign in again.
  await row.getByRole('button', { name: `Disable ${email}` }).click();
  await page.getByRole('dialog', { name: `Disable ${email}?` }).getByRole('button', { name: 'Disable' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(row.getByRole('cell').nth(3)).toHaveText('disabled');
  await expect(row.getByRole('button', { name: `Reset password ${email}` })).toHaveCount(0);
  await them.reload();
  await expect(them).toHaveURL(/\/sign-in/);
  await signIn(them, email, password);
  await expect(them.getByRole('alert')).toHaveText('wrong email or password');
  await expect(them).toHaveURL(/\/sign-in/);
  await theirs.close();

  // The last org admin cannot give up the role: the 409 shows in the dialog.
  const adminRow = table.getByRole('row').filter({ has: page.getByRole('cell', { name: emailCell(adminEmail) }) });
  await adminRow.getByRole('button', { name: `Take org admin ${adminEmail}` }).click();
  const take = page.getByRole('dialog', { name: `Take the org admin role from ${adminEmail}?` });
  await take.getByRole('button', { name: 'Take org admin' }).click();
  await expect(take.getByRole('alert')).toHaveText(`${adminEmail} is the organisation's last enabled org admin`);
  await take.getByRole('button', { name: 'Cancel' }).click();
  await expect(adminRow.getByRole('cell').nth(2)).toHaveText('org admin');

  // Audited, without the password: the reset ended the one session the user had then (none).
  const listed = (await (await page.request.get(`/api/v1/users?q=${encodeURIComponent(email)}`)).json()) as { items: { id: string }[] };
  expect(listed.items).toHaveLength(1);
  const res = await page.request.get('/api/v1/audit?action=user.');
  expect(res.status()).toBe(200);
  const body = await res.text();
  expect(body).not.toContain(password);
  type Entry = { action: string; target_id: string; actor: { email?: string }; details: Record<string, unknown> };
  const entries = (JSON.parse(body) as { items: Entry[] }).items.filter((e) => e.target_id === listed.items[0]!.id);
  expect(entries.map((e) => e.action)).toEqual(['user.update', 'user.password_reset', 'user.create']);
  expect(entries[0]).toMatchObject({ actor: { email: adminEmail }, details: { disabled: true, sessions_ended: 1 } });
  expect(entries[1]).toMatchObject({ actor: { email: adminEmail }, details: { sessions_ended: 0 } });
});
