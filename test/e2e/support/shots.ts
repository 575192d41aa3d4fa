import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";

export const SHOTS_DIR = "artifacts/screenshots";

/**
 * Screenshots of one screen in light and dark (pages follow the system theme), saved as
 * `artifacts/screenshots/<prefix>-<name>-<light|dark>.png`.
 */
export async function shootThemes(page: Page, prefix: string, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
    // Full-page shots of a scrolled page would paint the sticky header mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS_DIR}/${prefix}-${name}-${scheme}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}
