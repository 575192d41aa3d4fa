import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { shootThemes } from "./support/shots.js";

/**
 * The send page as a careful sender uses it: a downloads count the gateway refuses is never
 * worked out into promises.
 */

type Lang = "en" | "zh-CN";
type Size = "desktop" | "phone";
const VIEWPORTS: Record<Size, { width: number; height: number }> = {
  desktop: { width: 1440, height: 900 },
  phone: { width: 390, height: 844 },
};

let site: ParcelSite;
let dir: string;
const paths: Record<string, string> = {};

test.beforeAll(async () => {
  site = await startParcelSite();
  dir = mkdtempSync(join(tmpdir(), "gh-parcel-send-ux-"));
  for (const [name, size] of [
    ["agenda.pdf", 20_000],
    ["minutes.txt", 1_500],
  ] as const) {
    paths[name] = join(dir, name);
    writeFileSync(paths[name], Buffer.alloc(size, name.length));
  }
});

test.afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(browser: Browser, size: Size, lang: Lang): Promise<Page> {
  const context = await browser.newContext({
    viewport: VIEWPORTS[size],
    isMobile: size === "phone",
    hasTouch: size === "phone",
  });
  await context.addInitScript((l) => localStorage.setItem("gatehouse.parcel.lang", l), lang);
  return context.newPage();
}

async function choose(page: Page, names: string[]): Promise<void> {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: /^Choose files$|^选择文件$/ }).click();
  await (await chooser).setFiles(names.map((n) => paths[n]));
}

const NOTE = {
  en: {
    downloads: "Downloads allowed",
    sum: /With 2 files, 10 downloads let about 5 people/,
  },
  "zh-CN": {
    downloads: "允许下载次数",
    sum: /共 2 个文件：逐个下载时，10 次下载只够约 5 人/,
  },
} as const;

for (const [size, lang] of [
  ["desktop", "en"],
  ["phone", "zh-CN"],
] as const) {
  test(`a downloads count the gateway refuses is not worked out into people (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = NOTE[lang];
    const page = await open(browser, size, lang);
    await page.goto(`${site.url}/#/`);
    await choose(page, ["agenda.pdf", "minutes.txt"]);
    const note = page.getByTestId("downloads-note");
    await expect(note).toContainText(w.sum);
    const field = page.getByLabel(w.downloads, { exact: true });
    for (const value of ["99999999999", "1001", "0", "2.5"]) {
      await field.fill(value);
      await expect(field).toHaveAttribute("aria-invalid", "true");
      await expect(note).not.toContainText(value === "2.5" ? "2.5" : value);
      await expect(note).not.toContainText(/people|人/);
    }
    await field.fill("99999999999");
    await shootThemes(page, "parcel-send-ux", `downloads-invalid-${size}-${lang}`);
    await field.fill("10");
    await expect(note).toContainText(w.sum);
    await page.context().close();
  });
}
