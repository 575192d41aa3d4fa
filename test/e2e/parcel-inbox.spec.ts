import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { expect, test, type Page } from "@playwright/test";
import { startRelay, type TcpRelay } from "../helpers/tcp-relay.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { adminApi, openParcelPage, signInAdmin, type AdminApi } from "./support/parcel-page.js";
import { shootThemes } from "./support/shots.js";

/**
 * The phone's side of the inbox in Chromium: a phone-sized page opens the inbox link (what its
 * camera reads from the QR code), sends three files, one of them cut off by a dropped
 * connection and resumed, and is told they were delivered; the administrator's Inbox tab lists
 * the delivery, and the stored files are the sent bytes exactly.
 */

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

let site: ParcelSite;
let relay: TcpRelay;
let dir: string;
let admin: AdminApi;

interface Source {
  name: string;
  path: string;
  data: Buffer;
}
let files: Source[];

test.beforeAll(async () => {
  relay = await startRelay();
  site = await startParcelSite({
    entries: ["http://127.0.0.1:PORT", relay.url],
    computerName: "Study PC",
  });
  relay.target = site.harness.port;
  dir = mkdtempSync(join(tmpdir(), "gh-inbox-e2e-"));
  const make = (name: string, size: number): Source => {
    const data = randomBytes(size);
    const path = join(dir, name);
    writeFileSync(path, data);
    return { name, path, data };
  };
  files = [
    make("holiday video.mp4", 4 * 1024 * 1024 + 321),
    make("IMG_2041.jpg", 600_000),
    make("shopping list.txt", 321),
  ];
  admin = await adminApi(site);
});

test.afterAll(async () => {
  await relay?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function openInbox(body: Record<string, unknown> = {}): Promise<string> {
  const r = await admin.call("POST", "/admin/inbox", body);
  expect(r.status).toBe(200);
  return (r.json.code as string).replace(/-/g, "");
}

/** The `Upload-Offset` of every PATCH the page sends. */
function patchOffsets(page: Page): number[] {
  const offsets: number[] = [];
  page.on("request", (req) => {
    if (req.method() === "PATCH") offsets.push(Number(req.headers()["upload-offset"]));
  });
  return offsets;
}

const rowProgress = (page: Page, name: string) =>
  page
    .getByRole("progressbar", { name })
    .getAttribute("aria-valuenow")
    .then((v) => Number(v));

test("a phone sends three files, one cut off and resumed; the admin's Inbox tab shows them; the bytes are exact", async ({
  browser,
}) => {
  const code = await openInbox({ minutes: 30 });
  const page = await openParcelPage(browser, "phone", "en");
  const offsets = patchOffsets(page);
  const cdp = await page.context().newCDPSession(page);
  await page.goto(`${relay.url}/#/inbox/${code}`);
  await expect(page.getByRole("heading", { name: "Send to Study PC" })).toBeVisible();
  // The camera roll's chooser and any files: both take several at once.
  const photos = page.getByLabel("Choose photos or videos");
  await expect(photos).toHaveAttribute("accept", "image/*,video/*");
  await expect(photos).toHaveAttribute("multiple", "");
  await page.getByLabel("Choose files").setInputFiles(files.map((f) => f.path));
  await expect(page.getByText("3 files, 4.57 MiB")).toBeVisible();
  await shootThemes(page, "inbox-phone", "chosen-en");

  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 1024 * 1024,
  });
  await page.getByRole("button", { name: "Send 3 files" }).click();
  await expect
    .poll(() => rowProgress(page, files[0].name), { timeout: 20_000 })
    .toBeGreaterThan(40);
  // The Wi-Fi drops mid-file and stays away for a moment.
  relay.down = true;
  relay.cut();
  await expect(page.getByText(/Connection lost at \d+ %; going on by itself/)).toBeVisible();
  await shootThemes(page, "inbox-phone", "resuming-en");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  relay.down = false;
  await expect(page.getByRole("heading", { name: "Delivered" })).toBeVisible({ timeout: 40_000 });
  await expect(page.getByText("3 files are now on Study PC.")).toBeVisible();
  await shootThemes(page, "inbox-phone", "delivered-en");
  // The cut file went on from what the service had stored, not from the start.
  expect(offsets[0]).toBe(0);
  expect(Math.max(...offsets)).toBeGreaterThan(files[0].data.length / 4);

  // The administrator's Inbox tab lists the delivery with its files and sender.
  const console = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await console.addInitScript(() => localStorage.setItem("gatehouse.parcel.lang", "en"));
  await signInAdmin(console, site, "inbox");
  await expect(console.getByRole("heading", { name: /^Inbox: devices send/ })).toBeVisible();
  const delivery = console.getByRole("list", { name: "Deliveries" }).getByRole("listitem").first();
  for (const f of files) await expect(delivery.getByText(f.name, { exact: true })).toBeVisible();
  await expect(delivery.getByText("127.0.0.1")).toBeVisible();
  await expect(console.locator("img.qr")).toHaveAttribute("data-qr-text", /\/#\/inbox\//);
  await shootThemes(console, "inbox-admin", "tab-en");
  await console.getByLabel("Language").selectOption("zh-CN");
  await expect(
    console.getByRole("heading", { name: "收件箱：设备把文件发送到这里" }),
  ).toBeVisible();
  await shootThemes(console, "inbox-admin", "tab-zh");
  await console.getByLabel("语言").selectOption("en");
  // A download link gives the file's bytes.
  const [download] = await Promise.all([
    console.waitForEvent("download"),
    delivery.getByRole("button", { name: `Download ${files[2].name}` }).click(),
  ]);
  expect(readFileSync((await download.path()) ?? "").equals(files[2].data)).toBe(true);

  // Stored exactly as sent.
  const view = await admin.call("GET", "/admin/inbox");
  const item = view.json.items[0] as { files: Array<{ name: string; id: string }>; code: string };
  expect(item.files.map((f) => f.name).sort()).toEqual(files.map((f) => f.name).sort());
  for (const f of files) {
    const row = site.harness.repos.parcels.file(
      item.files.find((x) => x.name === f.name)?.id ?? "",
    );
    expect(row?.sha256).toBe(sha256(f.data));
    const stored = readFileSync(site.harness.service.ctx.storage.pathOf(row?.sha256 ?? ""));
    expect(stored.equals(f.data)).toBe(true);
  }
  await console.close();
  await page.context().close();
});

test("the password step, a wrong code and a closed inbox are said in words; in Chinese too", async ({
  browser,
}) => {
  const code = await openInbox({ password: "garden gnome" });
  const page = await openParcelPage(browser, "phone", "en");
  await page.goto(`${site.url}/#/inbox/${code}`);
  await expect(page.getByText("This inbox is protected.", { exact: false })).toBeVisible();
  await shootThemes(page, "inbox-phone", "password-en");
  await page.getByLabel("Password").fill("wrong");
  await page.getByRole("button", { name: "Unlock" }).click();
  await expect(page.getByText(/^Wrong password\./)).toBeVisible();
  await page.getByLabel("Password").fill("garden gnome");
  await page.getByRole("button", { name: "Unlock" }).click();
  await expect(page.getByLabel("Choose files")).toBeAttached();

  // Closed while the phone had it open: sending says so instead of failing vaguely.
  await admin.call("DELETE", "/admin/inbox");
  await page.getByLabel("Choose files").setInputFiles([files[2].path]);
  await page.getByRole("button", { name: "Send 1 file" }).click();
  await expect(
    page.getByText(/^Open the inbox with its code again|^The inbox was closed/),
  ).toBeVisible();

  const zh = await openParcelPage(browser, "phone", "zh-CN");
  await zh.goto(`${site.url}/#/inbox/ZZZZZZ`);
  await expect(zh.getByText("没有使用此收件码的已打开收件箱", { exact: false })).toBeVisible();
  await shootThemes(zh, "inbox-phone", "wrong-code-zh");
  const fresh = await openInbox();
  await zh.goto(`${site.url}/#/inbox/${fresh}`);
  await expect(zh.getByRole("heading", { name: "发送到 Study PC" })).toBeVisible();
  // Two Chinese sentences meet without a space between them.
  await expect(zh.getByText("它们会直接发送到 Study PC。还会开放", { exact: false })).toBeVisible();
  await zh.getByLabel("选择文件").setInputFiles(files.slice(1).map((f) => f.path));
  await shootThemes(zh, "inbox-phone", "chosen-zh");
  await zh.getByRole("button", { name: "发送 2 个文件" }).click();
  await expect(zh.getByRole("heading", { name: "已送达" })).toBeVisible({ timeout: 20_000 });
  await shootThemes(zh, "inbox-phone", "delivered-zh");
  await page.context().close();
  await zh.context().close();
});

test("the inbox page loads under 150 kB of gzipped JavaScript", async ({ browser }) => {
  const code = await openInbox();
  const page = await openParcelPage(browser, "phone", "en");
  const scripts: Array<{ url: string; body: Promise<Buffer> }> = [];
  page.on("response", (res) => {
    if (res.url().endsWith(".js")) scripts.push({ url: res.url(), body: res.body() });
  });
  await page.goto(`${site.url}/#/inbox/${code}`);
  await expect(page.getByLabel("Choose files")).toBeAttached();
  let total = 0;
  for (const s of scripts) total += gzipSync(await s.body).length;
  test.info().annotations.push({ type: "inbox page JS (gzip)", description: `${total} bytes` });
  expect(total).toBeLessThan(150 * 1024);
  expect(scripts.map((s) => s.url).join(" ")).not.toMatch(/\/(admin|mine|browser)-/);
  await page.context().close();
});
