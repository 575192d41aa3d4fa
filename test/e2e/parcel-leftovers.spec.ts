import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { CookieJar } from "../helpers/parcel-harness.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import type { Lang } from "./support/parcel-page.js";
import { PHONE, shootThemes } from "./support/shots.js";

/**
 * Parcel page leftovers from a new user's run: the pickup forms on a phone sit right under
 * the heading, a link's `lang` parameter picks the page's language, and My parcels answers a
 * New code on a parcel that got locked meanwhile in the reader's words and shows the lock.
 */

let site: ParcelSite;
let dir: string;
let file: string;

test.beforeAll(async () => {
  site = await startParcelSite();
  dir = mkdtempSync(join(tmpdir(), "gh-parcel-leftovers-"));
  file = join(dir, "minutes.pdf");
  writeFileSync(file, Buffer.alloc(30_000, 7));
});

test.afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A phone whose browser prefers `browser`, with `stored` as the page's remembered choice. */
async function phone(browser: Browser, stored: Lang | null, locale = "en-US") {
  const context = await browser.newContext({
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
    locale,
  });
  if (stored)
    await context.addInitScript((l) => localStorage.setItem("gatehouse.parcel.lang", l), stored);
  return context;
}

/** Sends one file with a password through the page; answers the pickup code. */
async function sendWithPassword(page: Page, password: string): Promise<string> {
  await page.goto(`${site.url}/#/`);
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: /^Choose files$|^选择文件$/ }).click();
  await (await chooser).setFiles([file]);
  await page.getByLabel(/^Password \(optional\)$|^密码（可选）$/).fill(password);
  await page.getByRole("button", { name: /^Upload|^上传/ }).click();
  await expect(page.getByRole("status", { name: /^Pickup code$|^取件码$/ })).toBeVisible();
  return (await page.getByRole("status", { name: /^Pickup code$|^取件码$/ }).textContent()) ?? "";
}

/** The gap between the page's heading and the form below it, in CSS pixels. */
async function gapBelowHeading(page: Page): Promise<number> {
  const heading = await page.getByRole("heading", { level: 1 }).boundingBox();
  const form = await page.locator(".pickup-form").boundingBox();
  if (!heading || !form) throw new Error("heading or form not laid out");
  return form.y - (heading.y + heading.height);
}

const WORDS = {
  en: { heading: "Pick up files", code: "Pickup code", password: "Password" },
  "zh-CN": { heading: "取件", code: "取件码", password: "密码" },
} as const;

test.describe("phone layout", () => {
  for (const lang of ["en", "zh-CN"] as const) {
    test(`the pickup code and password forms sit right under the heading on a phone (${lang})`, async ({
      browser,
    }) => {
      const senderContext = await phone(browser, "en");
      const code = await sendWithPassword(await senderContext.newPage(), "sesame 42");
      await senderContext.close();

      const context = await phone(browser, lang);
      const page = await context.newPage();
      const words = WORDS[lang];
      await page.goto(`${site.url}/#/pickup`);
      await expect(page.getByRole("heading", { name: words.heading })).toBeVisible();
      await expect(page.getByLabel(words.code)).toBeVisible();
      // Pinned to the bottom it was ~350 px below the lead line; now the lead and a margin.
      expect(await gapBelowHeading(page)).toBeLessThan(90);
      await shootThemes(page, "parcel-leftovers", `pickup-code-phone-${lang}`);

      await page.getByLabel(words.code).fill(code);
      await page.getByLabel(words.code).press("Enter");
      await expect(page.getByLabel(words.password)).toBeVisible();
      expect(await gapBelowHeading(page)).toBeLessThan(90);
      // Nothing hides off-screen: the unlock button is in the first screenful.
      const button = await page.locator(".pickup-form button[type=submit]").boundingBox();
      expect(button && button.y + button.height).toBeLessThan(PHONE.height);
      await shootThemes(page, "parcel-leftovers", `pickup-password-phone-${lang}`);
      await context.close();
    });
  }
});

test.describe("link language", () => {
  test("a lang query or hash parameter opens the pages in that language, over the stored choice", async ({
    browser,
  }) => {
    // Remembered English and an English browser: the link's zh-CN still wins.
    const context = await phone(browser, "en");
    const page = await context.newPage();
    await page.goto(`${site.url}/?lang=zh-CN#/pickup`);
    await expect(page.getByRole("heading", { name: "取件" })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await shootThemes(page, "parcel-leftovers", "link-lang-query-phone-zh-CN");

    await page.goto(`${site.url}/#/pickup?lang=zh-CN`);
    await page.reload();
    await expect(page.getByRole("heading", { name: "取件" })).toBeVisible();
    await expect(page.getByLabel("取件码")).toBeVisible();

    // Anything but the two languages is ignored: the stored English stays.
    await page.goto(`${site.url}/?lang=fr#/pickup?lang=de`);
    await page.reload();
    await expect(page.getByRole("heading", { name: "Pick up files" })).toBeVisible();
    await context.close();

    // Remembered Chinese and a Chinese browser: a link in English opens in English.
    const zhContext = await phone(browser, "zh-CN", "zh-CN");
    const zhPage = await zhContext.newPage();
    await zhPage.goto(`${site.url}/#/pickup?lang=en`);
    await expect(zhPage.getByRole("heading", { name: "Pick up files" })).toBeVisible();
    await shootThemes(zhPage, "parcel-leftovers", "link-lang-hash-phone-en");
    await zhPage.goto(`${site.url}/#/pickup`);
    await zhPage.reload();
    await expect(zhPage.getByRole("heading", { name: "取件" })).toBeVisible();
    await zhContext.close();
  });
});

test.describe("new code on a locked parcel", () => {
  for (const lang of ["en", "zh-CN"] as const) {
    test(`New code on a parcel locked meanwhile says why in the reader's words and shows the lock (${lang})`, async ({
      browser,
    }) => {
      const context = await phone(browser, "en");
      const page = await context.newPage();
      const code = await sendWithPassword(page, "right one");
      await page.goto(`${site.url}/#/mine`);
      const card = page.locator(".parcel-card").first();
      await expect(card.getByRole("button", { name: "New code" })).toBeVisible();
      if (lang === "zh-CN") await page.getByLabel("Language").selectOption("zh-CN");
      const zh = lang === "zh-CN";

      // While the list is open, someone else types wrong passwords until the parcel locks.
      const stranger = new CookieJar();
      const attempts = site.harness.service.ctx.policy().password_attempts;
      for (let i = 0; i < attempts; i++) {
        const r = await site.harness.request("POST", "/pickup/resolve", {
          body: { code, password: `wrong ${i}` },
          jar: stranger,
        });
        expect(r.status).toBe(401);
      }

      await card.getByRole("button", { name: zh ? "新取件码" : "New code" }).click();
      await card.getByRole("button", { name: zh ? "确认生成" : "Yes, new code" }).click();
      await expect(card.getByText(zh ? "已锁定" : "Locked", { exact: true })).toBeVisible();
      await expect(card.getByRole("alert")).toHaveText(
        zh
          ? "未生成新的取件码：包裹的状态在此期间已经改变，现在无法生成新的取件码。当前状态见上方。"
          : "No new code was issued: the parcel changed in the meantime and cannot get one now. Its state is shown above.",
      );
      await expect(card).not.toContainText("published");
      await expect(card.getByRole("button", { name: zh ? "新取件码" : "New code" })).toHaveCount(0);
      await expect(
        card.getByRole("button", { name: zh ? "确认生成" : "Yes, new code" }),
      ).toHaveCount(0);
      await shootThemes(page, "parcel-leftovers", `mine-new-code-locked-phone-${lang}`);
      await context.close();
    });
  }
});
