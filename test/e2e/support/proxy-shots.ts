import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";

export const SHOTS_DIR = "artifacts/screenshots";

/** Screenshots of one screen in light and dark (the console follows the system theme). */
export async function shootBothThemes(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
    // Full-page shots of a scrolled page would paint the sticky header mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS_DIR}/proxy-${name}-${scheme}.png`, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}
