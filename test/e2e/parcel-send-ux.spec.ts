import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { openParcelPage } from "./support/parcel-page.js";
import { shootThemes } from "./support/shots.js";

/**
 * The send page as a careful sender uses it: a downloads count the gateway refuses is never
 * worked out into promises.
 */

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
  ["phone", "en"],
  ["desktop", "zh-CN"],
] as const) {
  test(`a downloads count the gateway refuses is not worked out into people (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = NOTE[lang];
    const page = await openParcelPage(browser, size, lang);
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

/** The upload link of `page` slowed to `bytesPerSecond`, so a big file is still on its way. */
async function slowUpload(page: Page, bytesPerSecond: number): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 5,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
}

const LEAVE = {
  en: {
    upload: /^Upload 3 files/,
    leave: /^Leave out/,
    confirm: /^Leave “video\.mp4” out of this parcel\? The other files go on\./,
    yes: "Leave it out",
    ready: /Ready to pick up/,
    interrupted: "Unfinished upload",
  },
  "zh-CN": {
    upload: /^上传 3 个文件/,
    leave: /^不发送此文件/,
    confirm: /^不再发送“video\.mp4”？其他文件会继续上传。/,
    yes: "不发送",
    ready: /可以取件了/,
    interrupted: "未完成的上传",
  },
} as const;

for (const [size, lang] of [
  ["desktop", "en"],
  ["phone", "zh-CN"],
  ["phone", "en"],
  ["desktop", "zh-CN"],
] as const) {
  test(`one file is left out during the upload and the rest is sent (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = LEAVE[lang];
    paths["video.mp4"] ??= join(dir, "video.mp4");
    writeFileSync(paths["video.mp4"], Buffer.alloc(6 * 1024 * 1024, 9));
    const page = await openParcelPage(browser, size, lang);
    await page.goto(`${site.url}/#/`);
    await choose(page, ["video.mp4", "agenda.pdf", "minutes.txt"]);
    await slowUpload(page, 256 * 1024);
    await page.getByRole("button", { name: w.upload }).click();
    const video = page.locator(".upload-row").filter({ hasText: "video.mp4" });
    await expect(video).toHaveAttribute("data-state", "uploading");
    await video.getByRole("button", { name: w.leave }).click();
    await expect(video.getByRole("group")).toContainText(w.confirm);
    await shootThemes(page, "parcel-send-ux", `leave-out-confirm-${size}-${lang}`);
    await video.getByRole("button", { name: w.yes }).click();
    await expect(page.getByRole("heading", { name: w.ready })).toBeVisible({ timeout: 20_000 });
    const sent = page.locator(".send-done .file-list");
    await expect(sent).toContainText("agenda.pdf");
    await expect(sent).toContainText("minutes.txt");
    await expect(sent).not.toContainText("video.mp4");
    await shootThemes(page, "parcel-send-ux", `leave-out-done-${size}-${lang}`);
    // The service agrees: two files, nothing of the third kept anywhere.
    const mine = await page.evaluate(async () => (await fetch("/api/v1/mine")).json());
    const names = (mine as { items: Array<{ files: Array<{ name: string }> }> }).items[0].files;
    expect(names.map((f) => f.name).sort()).toEqual(["agenda.pdf", "minutes.txt"]);
    await page.context().close();
  });

  test(`after a reload the unfinished upload can leave out the file that is missing (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = LEAVE[lang];
    paths["video.mp4"] ??= join(dir, "video.mp4");
    writeFileSync(paths["video.mp4"], Buffer.alloc(6 * 1024 * 1024, 9));
    const page = await openParcelPage(browser, size, lang);
    await page.goto(`${site.url}/#/`);
    await choose(page, ["video.mp4", "agenda.pdf", "minutes.txt"]);
    await slowUpload(page, 256 * 1024);
    await page.getByRole("button", { name: w.upload }).click();
    await expect(page.locator(".upload-row").filter({ hasText: "agenda.pdf" })).toHaveAttribute(
      "data-state",
      "done",
      { timeout: 20_000 },
    );
    await expect(page.locator(".upload-row").filter({ hasText: "minutes.txt" })).toHaveAttribute(
      "data-state",
      "done",
      { timeout: 20_000 },
    );
    // The tab is reloaded mid-upload (the browser asks first; the sender goes on anyway).
    page.on("dialog", (d) => void d.accept());
    await page.reload();
    await expect(page.getByRole("heading", { name: w.interrupted })).toBeVisible();
    const row = page.locator(".send-interrupted .file-row").filter({ hasText: "video.mp4" });
    await shootThemes(page, "parcel-send-ux", `interrupted-${size}-${lang}`);
    // The video is not at hand any more: leave it out, the stored files are published.
    // Asked first, as while uploading: nothing is dropped on one tap.
    await row.getByRole("button", { name: w.leave }).click();
    await expect(row.getByRole("group")).toContainText(w.confirm);
    await expect(page.getByRole("heading", { name: w.interrupted })).toBeVisible();
    await shootThemes(page, "parcel-send-ux", `interrupted-leave-out-${size}-${lang}`);
    await row.getByRole("button", { name: w.yes }).click();
    await expect(page.getByRole("heading", { name: w.ready })).toBeVisible({ timeout: 20_000 });
    const sent = page.locator(".send-done .file-list");
    await expect(sent).not.toContainText("video.mp4");
    await expect(sent).toContainText("agenda.pdf");
    await page.context().close();
  });
}
