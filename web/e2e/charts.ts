import { expect, type Page } from '@playwright/test';

/**
 * drawCharts scrolls the page from top to bottom, half a screen at a time, so
 * that every chart area (web/src/components/ui/chart-area.tsx), which draws
 * its chart only once it comes within reach of the screen, has drawn; then
 * back to the top. For full-page screenshots and checks on a whole page.
 */
export async function drawCharts(page: Page) {
  await page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    for (let y = 0; y < document.documentElement.scrollHeight; y += Math.round(window.innerHeight / 2)) {
      window.scrollTo(0, y);
      await frame();
    }
  });
  await expect(page.locator('[data-drawn="later"]')).toHaveCount(0);
  await page.evaluate(() => window.scrollTo(0, 0));
}
