import { expect, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { tokenAccount } from "../../../main/secrets/keychain.js";
import type { DesktopRig } from "./desktop-bridge.js";
import { shootThemes } from "./shots.js";

/** The desktop window's steps shared by the desktop renderer specs. */

export const SIZES = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
} as const;

export async function openWindow(
  browser: Browser,
  desktopRig: DesktopRig,
  size: keyof typeof SIZES = "desktop",
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: SIZES[size], isMobile: size === "phone" });
  await desktopRig.install(context);
  await context.addInitScript(() => {
    if (!localStorage.getItem("gatehouse.parcel.lang"))
      localStorage.setItem("gatehouse.parcel.lang", "en");
  });
  return { context, page: await context.newPage() };
}

/** Sends a text parcel from the window; answers its id (the one new token the app keeps). */
export async function sendText(page: Page, base: string, text: string): Promise<void> {
  await page.goto(`${base}/#/`);
  await page.getByRole("tab", { name: "Text" }).click();
  await page.getByLabel("Text to send").fill(text);
  await page.getByRole("button", { name: "Upload the text and get a code" }).click();
  await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
}

export function tokenKeys(page: Page): Promise<string[]> {
  return page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes("token")));
}

/** Parcel ids whose tokens the keychain holds. */
export function keptIds(r: DesktopRig): string[] {
  return r.secrets
    .list()
    .map((c) => c.account)
    .filter((a) => a.startsWith(tokenAccount("")))
    .map((a) => a.slice(tokenAccount("").length));
}

/** Light and dark of the window, saved as `artifacts/screenshots/desktop-<name>-<scheme>.png`. */
export async function shoot(page: Page, name: string): Promise<void> {
  await shootThemes(page, "desktop", name);
}
