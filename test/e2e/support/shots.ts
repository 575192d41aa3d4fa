import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Page, PageScreenshotOptions } from "@playwright/test";

export const SHOTS_DIR = "artifacts/screenshots";

/** The two sizes every screen is looked at in: a laptop and a phone. */
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };
export type Size = "desktop" | "phone";
export const VIEWPORTS: Record<Size, { width: number; height: number }> = {
  desktop: DESKTOP,
  phone: PHONE,
};

/** Runs `each` at the laptop size, then at the phone size (given the width); ends at the laptop. */
export async function atBothSizes(
  page: Page,
  each: (width: number) => Promise<void>,
): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await each(size.width);
  }
  await page.setViewportSize(DESKTOP);
}

/**
 * Whether this run saves its screenshots (`GATEHOUSE_SHOTS=0` skips them: the steps around a
 * shot, switching theme, language and size and waiting for the page to follow, still run and
 * still assert; only the picture is not taken).
 */
export function shotsWanted(): boolean {
  return process.env.GATEHOUSE_SHOTS !== "0";
}

/** `page.screenshot` for a picture a person looks at later, to `options.path`. */
export async function saveShot(
  page: Page,
  options: PageScreenshotOptions & { path: string },
): Promise<void> {
  if (!shotsWanted()) return;
  mkdirSync(dirname(options.path), { recursive: true });
  await page.screenshot(options);
}

export type Scheme = "light" | "dark";

/**
 * Runs `each` with the page in light, then in dark: the system theme is emulated and `each`
 * starts once the page follows it (every page sets `data-theme` on <html> from the system
 * theme). The page is left in light, also when `each` fails.
 */
export async function inBothThemes(
  page: Page,
  each: (scheme: Scheme) => Promise<void>,
): Promise<void> {
  let failed = true;
  try {
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme);
      await each(scheme);
    }
    failed = false;
  } finally {
    // After a failure the page may be closed already: the failure is the error to read.
    const light = page.emulateMedia({ colorScheme: "light" });
    await (failed ? light.catch(() => undefined) : light);
  }
}

/**
 * Screenshots of one screen in light and dark (pages follow the system theme), saved as
 * `artifacts/screenshots/<prefix>-<name>-<light|dark>.png`.
 */
export async function shootThemes(page: Page, prefix: string, name: string): Promise<void> {
  await inBothThemes(page, async (scheme) => {
    // Full-page shots of a scrolled page would paint the sticky header mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await saveShot(page, { path: `${SHOTS_DIR}/${prefix}-${name}-${scheme}.png`, fullPage: true });
  });
}
