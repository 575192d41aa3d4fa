import { expect, test, type Page } from "@playwright/test";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { PASSWORD, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import { setUp } from "./support/proxy-page.js";
import { inBothThemes, saveShot, shotsWanted, VIEWPORTS } from "./support/shots.js";

/**
 * The pieces every page shares (the CSS base, the form field, the string tables) seen as a
 * person sees them: the admin overview and settings, the send form, the proxy dashboard and
 * settings, at desktop and phone size, light and dark, English and Chinese. With
 * `npm run test:shots` the shots go to GATEHOUSE_SHOTS_DIR (default
 * artifacts/screenshots/shared), so two builds can be compared.
 */
const DIR = process.env.GATEHOUSE_SHOTS_DIR ?? "artifacts/screenshots/shared";
const LANGS = ["en", "zh-CN"] as const;

let parcel: ParcelSite;
let proxy: ProxyConsole;
let pickupCode = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  parcel = await startParcelSite();
  // A parcel of one file (the counts say "1 file") and one of two (the pickup page offers
  // "Download all").
  const one = await createUpload(parcel.harness, { "holiday-photo.jpg": 2048 });
  expect((await uploadAndPublish(parcel.harness, one)).status).toBe(200);
  const two = await createUpload(parcel.harness, { "report.pdf": 4096, "slides.pdf": 8192 });
  const shared = await uploadAndPublish(parcel.harness, two);
  expect(shared.status).toBe(200);
  pickupCode = String((shared.json as { code: string }).code);
  proxy = await startProxyConsole();
  await setUp(proxy);
});

test.afterAll(async () => {
  await parcel?.close();
  await proxy?.close();
});

async function shoot(page: Page, name: string): Promise<void> {
  if (!shotsWanted()) return;
  await inBothThemes(page, async (scheme) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await saveShot(page, { path: `${DIR}/${name}-${scheme}.png`, fullPage: true });
  });
}

for (const [size, viewport] of Object.entries(VIEWPORTS)) {
  for (const lang of LANGS) {
    test(`parcel pages at ${size} size in ${lang}`, async ({ browser }) => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${parcel.url}/?lang=${lang}#/admin/stats`);
      await page.getByLabel(/^(Username|用户名)$/).fill(parcel.adminUser);
      await page.getByLabel(/^(Password|密码)$/).fill(parcel.adminPassword);
      await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
      await expect(page.getByTestId("stats-total")).toHaveText(/^(2 parcels|共 2 个包裹)$/);
      await shoot(page, `admin-overview-${size}-${lang}`);
      await page.goto(`${parcel.url}/?lang=${lang}#/admin/settings`);
      await expect(page.locator(".adm-field").first()).toBeVisible();
      await shoot(page, `admin-settings-${size}-${lang}`);
      await page.goto(`${parcel.url}/?lang=${lang}#/send`);
      await page
        .locator('input[type="file"]')
        .first()
        .setInputFiles({
          name: "notes.txt",
          mimeType: "text/plain",
          buffer: Buffer.from("hello"),
        });
      await expect(page.locator(".send-options")).toBeVisible();
      await shoot(page, `send-${size}-${lang}`);
      await page.goto(`${parcel.url}/?lang=${lang}#/pickup/${pickupCode}`);
      await expect(page.locator("a.primary-button")).toBeVisible();
      await shoot(page, `pickup-${size}-${lang}`);
      await page.goto(`${parcel.url}/?lang=${lang}#/mine`);
      await expect(page.locator("a.primary-link")).toBeVisible();
      await shoot(page, `mine-${size}-${lang}`);
      await context.close();
    });

    test(`proxy console at ${size} size in ${lang}`, async ({ browser }) => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(`${proxy.url}/?lang=${lang}#/dashboard`);
      await page.getByLabel(/^(Password|密码)$/).fill(PASSWORD);
      await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
      await expect(page.locator("nav#console-nav")).toBeAttached();
      await expect(page.locator("html")).toHaveAttribute("lang", lang);
      await expect(page.locator("main .card").first()).toBeVisible();
      await shoot(page, `proxy-dashboard-${size}-${lang}`);
      await page.goto(`${proxy.url}/?lang=${lang}#/settings`);
      await expect(page.locator(".field").first()).toBeVisible();
      await shoot(page, `proxy-settings-${size}-${lang}`);
      await context.close();
    });
  }
}
