import type { Locator, Page } from "@playwright/test";
import { SHOTS_DIR, inBothThemes, saveShot, shootThemes, shotsWanted } from "./shots.js";

export { SHOTS_DIR } from "./shots.js";

/** Screenshots of one screen in light and dark (the console follows the system theme). */
export async function shootBothThemes(page: Page, name: string): Promise<void> {
  await shootThemes(page, "proxy", name);
}

/**
 * Light and dark of the console as it is now, saved as
 * `artifacts/screenshots/proxy-<name>-<width>-<lang>-<scheme>.png` (the viewport's width, the
 * page's language). `top` scrolls to the top in each theme; `fullPage` takes the whole page,
 * not only the viewport.
 */
export async function shootView(
  page: Page,
  name: string,
  options: { top?: boolean; fullPage?: boolean } = {},
): Promise<void> {
  if (!shotsWanted()) return;
  const width = page.viewportSize()?.width ?? 0;
  const lang = await page.locator("html").getAttribute("lang");
  await inBothThemes(page, async (scheme) => {
    if (options.top) await page.evaluate(() => window.scrollTo(0, 0));
    await saveShot(page, {
      path: `${SHOTS_DIR}/proxy-${name}-${width}-${lang}-${scheme}.png`,
      fullPage: options.fullPage ?? false,
    });
  });
}

/** `shootView` of the part of the screen `target` is in (scrolled into view where it is not). */
export async function shootTarget(page: Page, name: string, target: Locator): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  await shootView(page, name);
}
