import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Page } from "@playwright/test";

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
 * Whether this run saves its screenshots: only when asked (`npm run test:shots`, or
 * `GATEHOUSE_SHOTS=1` beside any other way of starting Playwright). The pictures are for a
 * person to look at, not checks, and they were a sixth of the browser suite's work (the whole
 * run on the 2-core machine: 887 CPU-s and 534 s with them, 747 CPU-s and 458 s without).
 * Without them the steps that exist only for a picture are skipped too: switching the theme
 * and back (`shootThemes`, `shootView`), the sizes and languages of `shootEverywhere`, and
 * `atBothSizesForShots`. What they used to show in passing, that every page follows the
 * system's theme, is a test of its own (theme.spec.ts). Steps that assert something at each
 * size or in each language keep `atBothSizes` and `setLang`.
 */
export function shotsWanted(): boolean {
  // npm names the script it runs; this way `test:shots` needs no shell syntax (Windows too).
  return process.env.GATEHOUSE_SHOTS === "1" || process.env.npm_lifecycle_event === "test:shots";
}

/**
 * A PNG of the page for a person to look at later, at `path`: the viewport, or the whole page
 * with `fullPage`, as `page.screenshot` takes them (the text cursor left as it is), once the
 * page's fonts have loaded. Taken through Chromium's own screenshot command with its fast PNG
 * encoding (`optimizeForSpeed`, which `page.screenshot` does not offer): the same pixels in a
 * file about a fifth larger, for less of the browser's work (three specs that take 112
 * pictures: 95 CPU-s against 107; without the pictures, 71). `npm run test:shots` saves some 850.
 */
export async function saveShot(
  page: Page,
  options: { path: string; fullPage?: boolean },
): Promise<void> {
  if (!shotsWanted()) return;
  mkdirSync(dirname(options.path), { recursive: true });
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  const session = await page.context().newCDPSession(page);
  try {
    let whole = {};
    if (options.fullPage) {
      const { cssContentSize } = await session.send("Page.getLayoutMetrics");
      const viewport = page.viewportSize();
      const [width, height] = [cssContentSize.width, cssContentSize.height].map(Math.ceil);
      const fits = viewport !== null && width <= viewport.width && height <= viewport.height;
      whole = { clip: { x: 0, y: 0, width, height, scale: 1 }, captureBeyondViewport: !fits };
    }
    const { data } = await session.send("Page.captureScreenshot", {
      format: "png",
      optimizeForSpeed: true,
      ...whole,
    });
    writeFileSync(options.path, Buffer.from(data, "base64"));
  } finally {
    await session.detach();
  }
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
  if (!shotsWanted()) return;
  await inBothThemes(page, async (scheme) => {
    // Full-page shots of a scrolled page would paint the sticky header mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await saveShot(page, { path: `${SHOTS_DIR}/${prefix}-${name}-${scheme}.png`, fullPage: true });
  });
}

/** `atBothSizes` of steps that only take pictures: nothing when the run saves none. */
export async function atBothSizesForShots(
  page: Page,
  each: (width: number) => Promise<void>,
): Promise<void> {
  if (shotsWanted()) await atBothSizes(page, each);
}
