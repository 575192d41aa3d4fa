import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type CDPSession, type Page, type Request } from "@playwright/test";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { startRelay, type TcpRelay } from "../helpers/tcp-relay.js";
import { openParcelContext } from "./support/parcel-page.js";
import { shootThemes, VIEWPORTS } from "./support/shots.js";

/**
 * The send page resumes uploads by itself: after the connection drops mid-file it asks the
 * service how much is stored and sends only the rest; after a reload it offers to go on once
 * the same files are chosen again. The stored bytes are checked against the source.
 */

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const SIZE = 4 * 1024 * 1024 + 123;

let site: ParcelSite;
/** A TCP relay in front of the service, so a test can cut the browser's connections. */
let relay: TcpRelay;
let dir: string;
let source: { name: string; path: string; data: Buffer };
let other: string;

async function startRelayedSite(): Promise<TcpRelay> {
  const relayed = await startRelay();
  site = await startParcelSite({ entries: ["http://127.0.0.1:PORT", relayed.url] });
  relayed.target = site.harness.port;
  return relayed;
}

test.beforeAll(async () => {
  relay = await startRelayedSite();
  dir = mkdtempSync(join(tmpdir(), "gh-parcel-resume-"));
  other = join(dir, "something else.bin");
  writeFileSync(other, randomBytes(1000));
});

// New bytes for every test, so a file stored by an earlier test cannot pass for this one's.
test.beforeEach(() => {
  const data = randomBytes(SIZE);
  source = { name: "phone video.mp4", path: join(dir, "phone video.mp4"), data };
  writeFileSync(source.path, data);
});

test.afterAll(async () => {
  await relay?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A slow uplink (bytes per second), or none. */
async function throttle(cdp: CDPSession, upload: number) {
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: upload,
  });
}

/** The `Upload-Offset` of every PATCH the page sends. */
function patchOffsets(page: Page): number[] {
  const offsets: number[] = [];
  page.on("request", (req: Request) => {
    if (req.method() === "PATCH" && /\/api\/v1\/uploads\/[^/]+\/files\//.test(req.url()))
      offsets.push(Number(req.headers()["upload-offset"]));
  });
  return offsets;
}

async function choose(page: Page, button: RegExp, paths: string[]) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: button }).click();
  await (await chooser).setFiles(paths);
}

/** The file row's progress (0–100) as the page shows it. */
const rowProgress = (page: Page) =>
  page.locator(".upload-row [role=progressbar]").first().getAttribute("aria-valuenow").then(Number);

/** The file the last parcel stored: its state, recorded sha256 and the bytes on disk. */
function storedFile(): { state: string; sha256: string; bytes: Buffer } {
  // Newest parcel first, as the administrator's list shows them.
  const list = site.harness.repos.admin.page({}, { page: 1, pageSize: 20 });
  const file = list.rows.flatMap((p) => list.files.get(p.id) ?? []).find((f) => f.size === SIZE);
  if (!file?.sha256) throw new Error(`no stored file of ${SIZE} bytes`);
  const bytes = readFileSync(site.harness.service.ctx.storage.pathOf(file.sha256));
  return { state: file.state, sha256: file.sha256, bytes };
}

test("a connection lost at about half resumes from the stored offset; the stored file is exact", async ({
  browser,
}) => {
  const context = await openParcelContext(browser, "desktop", "en");
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const offsets = patchOffsets(page);
  await throttle(cdp, 1024 * 1024);
  await page.goto(`${relay.url}/#/`);
  await choose(page, /^Choose files$/, [source.path]);
  await page.getByRole("button", { name: /^Upload/ }).click();
  await expect(page.getByRole("heading", { name: "Uploading" })).toBeVisible();
  await expect.poll(() => rowProgress(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(50);

  // The connection is cut mid-file and the network stays down (a Wi-Fi hand-over).
  relay.down = true;
  relay.cut();
  await expect(page.getByText(/Connection lost — resuming from \d+%…/)).toBeVisible();
  // What the service stored is what the bar shows: about half, never back to zero.
  await expect.poll(() => rowProgress(page)).toBeGreaterThanOrEqual(25);
  // Then the browser says it is offline: the page waits for the network instead of retrying.
  await context.setOffline(true);
  await expect(page.getByText(/Offline — the upload goes on from \d+% when/)).toBeVisible({
    timeout: 15_000,
  });
  await shootThemes(page, "parcel-resume", "offline");
  await throttle(cdp, -1);
  relay.down = false;
  await context.setOffline(false);

  await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible({
    timeout: 30_000,
  });
  // The second request started where the service had stopped, not from the start.
  expect(offsets.length).toBeGreaterThanOrEqual(2);
  expect(offsets[0]).toBe(0);
  expect(offsets[offsets.length - 1]).toBeGreaterThan(SIZE / 4);
  const stored = storedFile();
  expect(stored.state).toBe("ready");
  expect(stored.sha256).toBe(sha256(source.data));
  expect(sha256(stored.bytes)).toBe(sha256(source.data));
  await context.close();
});

test("a dropped request is resumed after a back-off and says so", async ({ browser }) => {
  const context = await openParcelContext(browser, "desktop", "en");
  const page = await context.newPage();
  const offsets = patchOffsets(page);
  // The first PATCH is reset before it reaches the service: the page waits, asks HEAD, goes on.
  let cut = false;
  await page.route(/\/api\/v1\/uploads\/[^/]+\/files\//, async (route) => {
    if (route.request().method() === "PATCH" && !cut) {
      cut = true;
      await route.abort("connectionreset");
      return;
    }
    await route.fallback();
  });
  await page.goto(`${site.url}/#/`);
  await choose(page, /^Choose files$/, [source.path]);
  await page.getByRole("button", { name: /^Upload/ }).click();
  await expect(page.getByText("Connection lost — resuming from 0%…")).toBeVisible();
  await expect(page.getByText(/^Connection lost: 1 file resumes by itself/)).toBeVisible();
  await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible({
    timeout: 30_000,
  });
  expect(offsets).toEqual([0, 0]);
  expect(sha256(storedFile().bytes)).toBe(sha256(source.data));
  await context.close();
});

test("a 409 offset mismatch goes on from the offset the service names", async ({ browser }) => {
  const context = await openParcelContext(browser, "desktop", "en");
  const page = await context.newPage();
  const offsets = patchOffsets(page);
  // The first PATCH is answered as if the service held 1000 bytes; the real service then
  // refuses 1000 (it holds none) with its own 409, and the page goes on from 0.
  let faked = false;
  await page.route(/\/api\/v1\/uploads\/[^/]+\/files\//, async (route) => {
    if (route.request().method() === "PATCH" && !faked) {
      faked = true;
      await route.fulfill({
        status: 409,
        contentType: "application/json",
        headers: { "Upload-Offset": "1000", "Tus-Resumable": "1.0.0" },
        body: JSON.stringify({
          error: "Upload-Offset is not the stored offset",
          code: "upload.offset_mismatch",
          params: { offset: 1000 },
        }),
      });
      return;
    }
    await route.fallback();
  });
  await page.goto(`${site.url}/#/`);
  await choose(page, /^Choose files$/, [source.path]);
  await page.getByRole("button", { name: /^Upload/ }).click();
  await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
  expect(offsets).toEqual([0, 1000, 0]);
  expect(sha256(storedFile().bytes)).toBe(sha256(source.data));
  await context.close();
});

test("a service without resumable uploads (HEAD answers 405) gets the whole file with PUT", async ({
  browser,
}) => {
  const context = await openParcelContext(browser, "desktop", "en");
  const page = await context.newPage();
  const methods: string[] = [];
  await page.route(/\/api\/v1\/uploads\/[^/]+\/files\//, async (route) => {
    methods.push(route.request().method());
    if (route.request().method() === "HEAD") await route.fulfill({ status: 405 });
    else await route.fallback();
  });
  await page.goto(`${site.url}/#/`);
  await choose(page, /^Choose files$/, [source.path]);
  await page.getByRole("button", { name: /^Upload/ }).click();
  await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
  expect(methods).toEqual(["HEAD", "PUT"]);
  expect(sha256(storedFile().bytes)).toBe(sha256(source.data));
  await context.close();
});

test("after a reload mid-upload, choosing the same file again finishes it", async ({ browser }) => {
  const context = await openParcelContext(browser, "desktop", "en");
  const page = await context.newPage();
  page.on("dialog", (d) => void d.accept());
  const cdp = await context.newCDPSession(page);
  const offsets = patchOffsets(page);
  await throttle(cdp, 1024 * 1024);
  await page.goto(`${site.url}/#/`);
  await choose(page, /^Choose files$/, [source.path]);
  await page.getByRole("button", { name: /^Upload/ }).click();
  await expect.poll(() => rowProgress(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(30);

  await page.reload();
  await expect(
    page.getByText(/^This upload was interrupted\. Choose the same files again to continue/),
  ).toBeVisible();
  await expect(page.getByText("1 file still to send.", { exact: false })).toBeVisible();
  // The service says how much it holds once it has noticed the cut request (right after the
  // reload it may still vouch only for where that request started).
  await expect(async () => {
    await page.reload();
    await expect(page.getByText(/^\d+% stored · Choose again$/)).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    await shootThemes(page, "parcel-resume", `interrupted-${size}-en`);
  }
  await page.getByLabel("Language").selectOption("zh-CN");
  await expect(page.getByText(/^这次上传被中断了。请重新选择相同的文件以继续/)).toBeVisible();
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    await shootThemes(page, "parcel-resume", `interrupted-${size}-zh`);
  }
  await page.getByLabel("语言").selectOption("en");
  await page.setViewportSize(VIEWPORTS.desktop);

  // Another file is refused in words; nothing starts.
  await choose(page, /^Choose the same files$/, [other]);
  await expect(page.getByRole("alert")).toHaveText(
    "“something else.bin” is not one of this upload's files (its name, size or modification time differ). Choose the same file as before.",
  );
  const before = offsets.length;
  await throttle(cdp, -1);
  await choose(page, /^Choose the same files$/, [source.path]);
  await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible({
    timeout: 30_000,
  });
  expect(offsets.length).toBeGreaterThan(before);
  expect(offsets[before]).toBeGreaterThan(0);
  const stored = storedFile();
  expect(stored.sha256).toBe(sha256(source.data));
  expect(sha256(stored.bytes)).toBe(sha256(source.data));
  // Published: a later reload offers nothing.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Send files" })).toBeVisible();
  await expect(page.getByText(/This upload was interrupted/)).toHaveCount(0);
  await context.close();
});

test("Discard drops the interrupted upload and withdraws its parcel", async ({ browser }) => {
  const context = await openParcelContext(browser, "desktop", "en");
  const page = await context.newPage();
  page.on("dialog", (d) => void d.accept());
  const cdp = await context.newCDPSession(page);
  await throttle(cdp, 256 * 1024);
  await page.goto(`${site.url}/#/`);
  await choose(page, /^Choose files$/, [source.path]);
  await page.getByRole("button", { name: /^Upload/ }).click();
  await expect.poll(() => rowProgress(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(5);
  await page.reload();
  await page.getByRole("button", { name: "Discard" }).click();
  await expect(page.getByText(/This upload was interrupted/)).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Choose files" })).toBeVisible();
  const mine = await page.evaluate(async () => {
    const res = await fetch("/api/v1/mine");
    return ((await res.json()) as { items: Array<{ state: string }> }).items;
  });
  expect(mine[0]).toMatchObject({ state: "revoked" });
  await page.reload();
  await expect(page.getByRole("button", { name: "Choose files" })).toBeVisible();
  await expect(page.getByText(/This upload was interrupted/)).toHaveCount(0);
  await context.close();
});
