import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { tempFiles } from "../helpers/parcel-uploads.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { adminApi, openParcelPage, type AdminApi } from "./support/parcel-page.js";
import { atBothSizesForShots, shootThemes } from "./support/shots.js";

/**
 * Stopping while a phone sends to the inbox: Cancel stops everything still on its way, a
 * file's own Stop leaves that one out; what was already sent is delivered, a partly sent file
 * is dropped on the service (the computer's owner never sees it), and the page says so.
 */

let site: ParcelSite;
let admin: AdminApi;
let dir: string;
const paths: Record<string, string> = {};

test.beforeAll(async () => {
  site = await startParcelSite({ computerName: "Study PC" });
  admin = await adminApi(site);
  dir = mkdtempSync(join(tmpdir(), "gh-inbox-cancel-e2e-"));
  for (const [name, size] of [
    ["note.txt", 2_000],
    ["big video.mp4", 8 * 1024 * 1024],
  ] as const) {
    paths[name] = join(dir, name);
    writeFileSync(paths[name], randomBytes(size));
  }
});

test.afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens the inbox and the phone's send page on it, uploads held to 256 KiB/s. */
async function phoneOnInbox(browser: Parameters<typeof openParcelPage>[0], lang: "en" | "zh-CN") {
  const r = await admin.call("POST", "/admin/inbox", {});
  expect(r.status).toBe(200);
  const page = await openParcelPage(browser, "phone", lang);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 256 * 1024,
  });
  await page.goto(`${site.url}/#/inbox/${(r.json.code as string).replace(/-/g, "")}`);
  return page;
}

/** Waits until the big file is partly sent: its progress bar moved, the service holds bytes. */
async function bigUnderWay(page: Page): Promise<void> {
  await expect
    .poll(
      async () =>
        Number(
          await page
            .getByRole("progressbar", { name: "big video.mp4" })
            .getAttribute("aria-valuenow"),
        ),
      { timeout: 20_000 },
    )
    .toBeGreaterThan(5);
}

/** The files of the newest delivery the administrator sees. */
async function deliveredNames(): Promise<string[]> {
  const view = await admin.json<{ items: Array<{ files: Array<{ name: string }> }> }>(
    "GET",
    "/admin/inbox",
  );
  return (view.items[0]?.files ?? []).map((f) => f.name).sort();
}

test("Cancel midway: the file already sent is delivered, the partly sent one is dropped, the page says so", async ({
  browser,
}) => {
  const page = await phoneOnInbox(browser, "en");
  await page.getByLabel("Choose files").setInputFiles([paths["note.txt"], paths["big video.mp4"]]);
  await page.getByRole("button", { name: "Send 2 files" }).click();
  await bigUnderWay(page);
  await expect(page.locator('li[data-state="done"]')).toHaveCount(1);
  await atBothSizesForShots(page, (width) =>
    shootThemes(page, "inbox-cancel", `sending-en-${width}`),
  );
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Delivered" })).toBeVisible();
  await expect(page.getByText("1 file is now on Study PC.")).toBeVisible();
  await expect(
    page.getByText(/1 file was not sent: nothing of it stays on Study PC/),
  ).toBeVisible();
  await atBothSizesForShots(page, (width) =>
    shootThemes(page, "inbox-cancel", `after-en-${width}`),
  );
  // The owner's side: only the file that was sent; the partly sent one left nothing behind.
  expect(await deliveredNames()).toEqual(["note.txt"]);
  await expect.poll(() => tempFiles(site.harness)).toEqual([]);
  await page.context().close();
});

test("a file's Stop leaves it out and the rest is delivered; in Chinese", async ({ browser }) => {
  const page = await phoneOnInbox(browser, "zh-CN");
  await page.getByLabel("选择文件").setInputFiles([paths["big video.mp4"], paths["note.txt"]]);
  await page.getByRole("button", { name: "发送 2 个文件" }).click();
  await bigUnderWay(page);
  await page.getByRole("button", { name: "停止 big video.mp4" }).click();
  await expect(page.getByRole("heading", { name: "已送达" })).toBeVisible();
  await expect(page.getByText("1 个文件已送到 Study PC。")).toBeVisible();
  await expect(page.getByText(/1 个文件没有发送/)).toBeVisible();
  await atBothSizesForShots(page, (width) =>
    shootThemes(page, "inbox-cancel", `stopped-zh-${width}`),
  );
  expect(await deliveredNames()).toEqual(["note.txt"]);
  await expect.poll(() => tempFiles(site.harness)).toEqual([]);
  await page.context().close();
});

test("Cancel before anything was sent: nothing is delivered, and the page says so", async ({
  browser,
}) => {
  const before = await admin.json<{ items: unknown[] }>("GET", "/admin/inbox");
  const page = await phoneOnInbox(browser, "en");
  await page.getByLabel("Choose files").setInputFiles([paths["big video.mp4"]]);
  await page.getByRole("button", { name: "Send 1 file" }).click();
  await bigUnderWay(page);
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(
    page.getByText("Sending was cancelled: nothing was sent to Study PC."),
  ).toBeVisible();
  await expect(page.getByLabel("Choose files")).toBeAttached();
  await atBothSizesForShots(page, (width) => shootThemes(page, "inbox-cancel", `none-en-${width}`));
  const after = await admin.json<{ items: unknown[] }>("GET", "/admin/inbox");
  expect(after.items.length).toBe(before.items.length);
  await expect.poll(() => tempFiles(site.harness)).toEqual([]);
  await page.context().close();
});
