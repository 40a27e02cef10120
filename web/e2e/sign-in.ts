import { expect, type Page } from '@playwright/test';

/** The e2e stack's first admin (web/e2e/stack). */
export const adminEmail = 'admin@barrage.local';
export const adminPassword = process.env.BARRAGE_ADMIN_PASSWORD ?? 'e2e-password-0123';

/** signIn signs the page in through the sign-in form as the stack's admin and waits for the runs list. */
export async function signIn(page: Page) {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(adminEmail);
  await page.getByLabel('Password').fill(adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/runs$/);
}
