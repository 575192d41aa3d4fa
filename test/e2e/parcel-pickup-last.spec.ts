import { readFileSync } from "node:fs";
import { expect, test, type Browser } from "@playwright/test";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { openParcelContext, type Lang } from "./support/parcel-page.js";
import { DESKTOP, shootThemes } from "./support/shots.js";

/**
 * The last allowed download, picked up on a phone: the file arrives, and the page says so as
 * a plain success and shows the parcel as done (no red "no downloads left" above it, no
 * "Available · Expires in …"). The ZIP of several files is named after the parcel (its send
 * date and how many files), not after its first file.
 */

let site: ParcelSite;

test.beforeAll(async () => {
  site = await startParcelSite();
});

test.afterAll(async () => {
  await site?.close();
});

/** A context of the parcel page that accepts downloads: a phone, or the laptop. */
function open(browser: Browser, lang: Lang, phone = true) {
  return openParcelContext(browser, phone ? "phone" : "desktop", lang, { acceptDownloads: true });
}

/** A published parcel; answers its pickup code and when it was sent. */
async function publish(
  files: Record<string, number>,
  downloads: number,
): Promise<{ code: string; sentAt: number }> {
  const up = await createUpload(site.harness, files, { downloads });
  const r = await uploadAndPublish(site.harness, up);
  expect(r.status).toBe(200);
  const json = r.json as { code: string; sent_at: number };
  return { code: json.code, sentAt: json.sent_at };
}

/** `YYYY-MM-DD` of Unix seconds in this machine's zone (the service's, it runs here). */
function localDay(unix: number): string {
  const d = new Date(unix * 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

const WORDS = {
  en: {
    download: /^Download /,
    all: "Download all (ZIP)",
    started: "Download started: your browser shows its progress.",
    done: "That was the last download: this parcel is now done.",
    doneFact: "Done: every download is used",
    downloadsLeft: "Downloads left",
    available: "Available",
  },
  "zh-CN": {
    download: /^下载 /,
    all: "全部下载（ZIP）",
    started: "下载已开始：浏览器会显示下载进度。",
    done: "这是最后一次下载：此包裹现已完成。",
    doneFact: "已完成：下载次数已全部用完",
    downloadsLeft: "剩余下载次数",
    available: "有效期",
  },
} as const;

for (const lang of ["en", "zh-CN"] as const) {
  test(`the last download on a phone is a plain success and shows the parcel as done (${lang})`, async ({
    browser,
  }) => {
    const w = WORDS[lang];
    const { code } = await publish({ "minutes.pdf": 4096 }, 1);
    const context = await open(browser, lang);
    const page = await context.newPage();
    await page.goto(`${site.url}/#/pickup/${code.replace("-", "")}`);
    const link = page.getByRole("link", { name: w.download });
    await expect(link).toBeVisible();
    const downloaded = page.waitForEvent("download");
    await link.click();
    const file = await downloaded;
    expect(readFileSync((await file.path()) as string).length).toBe(4096);

    // The page has looked again after the download (it asks the service within seconds).
    await expect(page.getByText(w.done)).toBeVisible({ timeout: 8000 });
    await expect(page.getByText(w.started)).toHaveCount(0);
    await expect(page.getByRole("alert")).toHaveCount(0);
    await expect(page.locator(".notice-error, .notice-warn")).toHaveCount(0);
    const facts = page.locator(".pickup-facts");
    await expect(facts).toContainText(w.doneFact);
    await expect(facts).not.toContainText(lang === "en" ? "Expires in" : "后过期");
    await expect(page.getByTestId("downloads-left")).toHaveText("0");
    await expect(page.getByRole("link", { name: w.download })).toHaveCount(0);
    await shootThemes(page, "parcel-pickup-last", `done-phone-${lang}`);
    await page.setViewportSize(DESKTOP);
    await shootThemes(page, "parcel-pickup-last", `done-desktop-${lang}`);
    await context.close();
  });
}

test("the last download by ZIP is a success too, and the archive is named after the parcel: its send date and file count", async ({
  browser,
}) => {
  const { code, sentAt } = await publish(
    { "big-200MB.bin": 3000, "notes.txt": 100, "photo.jpg": 200 },
    1,
  );
  const context = await open(browser, "en");
  const page = await context.newPage();
  await page.goto(`${site.url}/#/pickup/${code.replace("-", "")}`);
  const downloaded = page.waitForEvent("download");
  await page.getByRole("link", { name: WORDS.en.all }).click();
  const file = await downloaded;
  expect(file.suggestedFilename()).toBe(`Parcel ${localDay(sentAt)} (3 files).zip`);
  await expect(page.getByText(WORDS.en.done)).toBeVisible({ timeout: 8000 });
  await expect(page.getByRole("alert")).toHaveCount(0);
  await context.close();
});
