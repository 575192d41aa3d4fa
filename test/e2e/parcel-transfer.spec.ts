import { createHash, randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { shootThemes } from "./support/shots.js";

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

interface Source {
  name: string;
  data: Buffer;
  path: string;
}

let site: ParcelSite;
let dir: string;
let sources: Source[];

test.beforeAll(async () => {
  site = await startParcelSite();
  dir = mkdtempSync(join(tmpdir(), "gh-parcel-e2e-"));
  const make = (name: string, size: number): Source => {
    const data = randomBytes(size);
    const path = join(dir, name);
    writeFileSync(path, data);
    return { name, data, path };
  };
  sources = [
    make("holiday-photo.jpg", 3 * 1024 * 1024 + 17),
    make("报告 2026.pdf", 300_000),
    make("notes.txt", 1234),
  ];
});

test.afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Drops files on the drop zone the way a desktop drag does (a DataTransfer with Files). */
async function dropFiles(page: Page, files: Array<{ name: string; data: Buffer }>) {
  await page.getByTestId("dropzone").evaluate(
    (zone, list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([new Uint8Array(f.bytes)], f.name));
      for (const type of ["dragenter", "dragover", "drop"]) {
        zone.dispatchEvent(
          new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }),
        );
      }
    },
    files.map((f) => ({ name: f.name, bytes: [...f.data] })),
  );
}

/** Picks files through the real file chooser opened by the page's button. */
async function chooseFiles(page: Page, buttonName: RegExp, paths: string[]) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: buttonName }).click();
  await (await chooser).setFiles(paths);
}

interface Published {
  code: string;
  link: string;
}

/** Uploads through the send screen and returns the code and link shown at the end. */
async function sendParcel(
  page: Page,
  files: Source[],
  opts: { downloads?: number; password?: string; shots?: boolean } = {},
): Promise<Published> {
  await page.goto(`${site.url}/#/`);
  await expect(page.getByRole("heading", { name: "Send files" })).toBeVisible();
  await chooseFiles(
    page,
    /^Choose files$/,
    files.map((f) => f.path),
  );
  if (opts.downloads !== undefined)
    await page.getByLabel("Downloads allowed").fill(String(opts.downloads));
  if (opts.password !== undefined) await page.getByLabel("Password (optional)").fill(opts.password);
  await page.getByRole("button", { name: /^Upload/ }).click();
  await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
  const code = (await page.getByRole("status", { name: "Pickup code" }).textContent()) ?? "";
  const link = (await page.locator(".share-url").textContent()) ?? "";
  return { code, link };
}

test.describe("send", () => {
  test("several files via the chooser and a drop, one removed, published with code, QR and links", async ({
    page,
  }) => {
    await page.goto(`${site.url}/#/`);
    await expect(page.getByRole("heading", { name: "Send files" })).toBeVisible();
    await expect(page.getByText(/Up to 100 files/)).toBeVisible();
    await shootThemes(page, "parcel", "send-empty");

    await chooseFiles(page, /^Choose files$/, [sources[0].path, sources[1].path]);
    await dropFiles(page, [{ name: "dropped.bin", data: sources[2].data }]);
    const list = page.getByRole("list", { name: "Files" });
    await expect(list.getByRole("listitem")).toHaveCount(3);
    await expect(page.getByText(/^3 files, /)).toBeVisible();
    // A pasted file (e.g. a screenshot) joins the list too.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(["pasted"], "pasted.png", { type: "image/png" }));
      window.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, cancelable: true }));
    });
    await expect(list.getByRole("listitem")).toHaveCount(4);
    // Adding more through the compact button, then removing two again before upload.
    await chooseFiles(page, /Add more files/, [sources[2].path]);
    await expect(list.getByRole("listitem")).toHaveCount(5);
    await page.getByRole("button", { name: "Remove dropped.bin" }).click();
    await page.getByRole("button", { name: "Remove pasted.png" }).click();
    await expect(list.getByRole("listitem")).toHaveCount(3);
    await shootThemes(page, "parcel", "send-picked");

    await page.getByLabel("Keep for (days)").fill("0");
    await expect(page.getByText("Days must be a whole number from 1 to 30.")).toBeVisible();
    await expect(page.getByRole("button", { name: /^Upload 3 files/ })).toBeDisabled();
    await page.getByLabel("Keep for (days)").fill("3");
    await page.getByRole("button", { name: /^Upload 3 files/ }).click();

    await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
    const code = (await page.getByRole("status", { name: "Pickup code" }).textContent()) ?? "";
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}$/);
    const entry = page.getByLabel("Address for the link and QR code");
    await expect(entry.locator("option")).toHaveText([/^.+$/, /^.+$/]);
    const link = page.locator(".share-url");
    await expect(link).toHaveText(new RegExp(`/#/pickup/${code.replace("-", "")}$`));
    const qr = page.locator("img.qr");
    await expect(qr).toHaveAttribute("src", /^data:image\/png;base64,/);
    await expect(qr).toHaveAttribute("data-qr-text", (await link.textContent()) ?? "");
    // The QR code follows the chosen entry.
    const labels = await entry.locator("option").allTextContents();
    const current = await entry.inputValue();
    const other = labels.find((l) => l !== current) ?? current;
    await entry.selectOption(other);
    await expect(qr).toHaveAttribute("data-qr-text", (await link.textContent()) ?? "");
    await expect(page.getByText("3 downloads left")).toHaveCount(0);
    await expect(page.getByText("10 downloads left")).toBeVisible();
    await expect(page.getByText(/^Expires in 3 d|^Expires in 2 d 23 h/)).toBeVisible();
    await page.getByRole("button", { name: "Copy code" }).click();
    await expect(page.getByRole("button", { name: /Copied/ })).toBeVisible();
    await shootThemes(page, "parcel", "send-done");
  });
});

/** Entries of a stored (uncompressed) ZIP, read through its central directory. */
function unzipStored(zip: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(0);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    expect(zip.readUInt16LE(at + 10)).toBe(0); // stored
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    const local = zip.readUInt32LE(at + 42);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    out.set(name, zip.subarray(dataAt, dataAt + size));
    at += 46 + skip;
  }
  return out;
}

/** A phone: 360 × 740, touch, its own cookies (a different device from the sender). */
async function phone(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
    acceptDownloads: true,
  });
  return context.newPage();
}

async function downloadVia(page: Page, click: () => Promise<void>) {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), data: readFileSync(path) };
}

async function noHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

test.describe("pickup on a phone", () => {
  test("each file and the archive download with the right bytes; counts go down; 410 at the end", async ({
    page,
    browser,
  }) => {
    const { code } = await sendParcel(page, sources, { downloads: 5 });
    const mobile = await phone(browser);
    await mobile.clock.install();
    await mobile.goto(`${site.url}/#/pickup/${code.replace("-", "").toLowerCase()}`);
    const list = mobile.getByRole("list", { name: "Files" });
    await expect(list.getByRole("listitem")).toHaveCount(3);
    await expect(mobile.getByText("3 files, 3.29 MiB")).toBeVisible();
    const left = mobile.getByTestId("downloads-left");
    await expect(left).toHaveText("5");
    await expect(mobile.getByText(/^Expires in 6 d 23 h|^Expires in 7 d/)).toBeVisible();
    await noHorizontalScroll(mobile);
    await shootThemes(mobile, "parcel", "pickup-files");

    for (const [i, source] of sources.slice(0, 2).entries()) {
      const got = await downloadVia(mobile, () =>
        mobile.getByRole("link", { name: `Download ${source.name}` }).click(),
      );
      expect(got.name).toBe(source.name);
      expect(sha256(got.data)).toBe(sha256(source.data));
      await expect(left).toHaveText(String(4 - i));
    }

    // Ten minutes later the pickup authorisation has lapsed (its cookie is gone): the page
    // renews it with the code it kept and the download still starts.
    await mobile.context().clearCookies();
    await mobile.clock.fastForward("09:30");
    const third = await downloadVia(mobile, () =>
      mobile.getByRole("link", { name: `Download ${sources[2].name}` }).click(),
    );
    expect(sha256(third.data)).toBe(sha256(sources[2].data));
    await expect(left).toHaveText("2");

    await expect(
      mobile.getByText(/^Only 2 downloads left, fewer than there are files/),
    ).toBeVisible();
    const zip = await downloadVia(mobile, () =>
      mobile.getByRole("link", { name: "Download all (ZIP)" }).click(),
    );
    // Named after the parcel (its send day and file count), not after one of its files.
    expect(zip.name).toMatch(/^Parcel \d{4}-\d\d-\d\d \(3 files\)\.zip$/);
    const entries = unzipStored(zip.data);
    expect([...entries.keys()].sort()).toEqual(sources.map((s) => s.name).sort());
    for (const s of sources) expect(sha256(entries.get(s.name)!)).toBe(sha256(s.data));
    await expect(left).toHaveText("1");

    await downloadVia(mobile, () =>
      mobile.getByRole("link", { name: `Download ${sources[2].name}` }).click(),
    );
    // That was the last one: the list stays, the links go, and the page calls it done.
    await expect(
      mobile.getByRole("status").filter({ hasText: "That was the last download" }),
    ).toHaveText("That was the last download: this parcel is now done.");
    await expect(mobile.getByRole("alert")).toHaveCount(0);
    await expect(list.getByRole("listitem")).toHaveCount(3);
    await expect(mobile.getByRole("link", { name: /^Download/ })).toHaveCount(0);

    // Opening the link again: the parcel has ended (410) and the page says so in words.
    await mobile.goto(`${site.url}/#/`);
    await mobile.goto(`${site.url}/#/pickup/${code}`);
    await expect(mobile.getByText("This parcel has no downloads left.")).toBeVisible();
    await shootThemes(mobile, "parcel", "pickup-ended");
    await mobile.context().close();
  });

  test("password: asked only when needed, a wrong one is refused, the right one opens", async ({
    page,
    browser,
  }) => {
    const { code } = await sendParcel(page, [sources[2]], { password: "open sesame" });
    await expect(page.getByText("Protected with a password")).toBeVisible();
    const mobile = await phone(browser);
    await mobile.goto(`${site.url}/#/pickup`);
    await expect(mobile.getByText("Enter the code you were given.")).toBeVisible();
    await noHorizontalScroll(mobile);
    await shootThemes(mobile, "parcel", "pickup-code");
    // Forgiving input: lower case, spaces, O for 0 and L for 1 all work.
    const typed = ` ${code.toLowerCase().replace("-", " - ")} `
      .replace(/0/g, "o")
      .replace(/1/g, "l");
    await mobile.getByLabel("Pickup code").fill(typed);
    await expect(mobile.getByLabel("Pickup code")).toHaveValue(code);
    await mobile.getByRole("button", { name: "Open" }).click();
    await expect(mobile.getByText(/This parcel is protected/)).toBeVisible();
    await expect(mobile.getByRole("alert")).toHaveCount(0);
    await mobile.getByLabel("Password").fill("wrong guess");
    await mobile.getByRole("button", { name: "Unlock" }).click();
    await expect(mobile.getByRole("alert")).toHaveText(/Wrong password/);
    await shootThemes(mobile, "parcel", "pickup-password");
    await mobile.getByLabel("Password").fill("open sesame");
    await mobile.getByRole("button", { name: "Unlock" }).click();
    await expect(mobile.getByRole("list", { name: "Files" }).getByRole("listitem")).toHaveCount(1);
    const got = await downloadVia(mobile, () =>
      mobile.getByRole("link", { name: `Download ${sources[2].name}` }).click(),
    );
    expect(sha256(got.data)).toBe(sha256(sources[2].data));
    // One file: no archive button.
    await expect(mobile.getByRole("link", { name: "Download all (ZIP)" })).toHaveCount(0);
    await mobile.context().close();
  });

  test("an empty file goes up and comes down; the next parcel opened in the tab starts afresh", async ({
    page,
    browser,
  }) => {
    const empty: Source = {
      name: "empty.txt",
      data: Buffer.alloc(0),
      path: join(dir, "empty.txt"),
    };
    writeFileSync(empty.path, empty.data);
    const { code } = await sendParcel(page, [empty], { downloads: 2 });
    await page.goto("about:blank");
    const next = await sendParcel(page, [empty], { downloads: 3 });
    const mobile = await phone(browser);
    await mobile.goto(`${site.url}/#/pickup/${code}`);
    await expect(mobile.getByText("1 file, 0 B")).toBeVisible();
    const got = await downloadVia(mobile, () =>
      mobile.getByRole("link", { name: "Download empty.txt" }).click(),
    );
    expect(got.name).toBe("empty.txt");
    expect(got.data.length).toBe(0);
    const started = mobile.getByText("Download started: your browser shows its progress.");
    await expect(started).toBeVisible();
    // Another parcel's link in the same tab: nothing was downloaded from it yet.
    await mobile.goto(`${site.url}/#/pickup/${next.code}`);
    await expect(mobile.getByTestId("downloads-left")).toHaveText("3");
    await expect(started).toHaveCount(0);
    await mobile.context().close();
  });

  test("an unknown code is answered in words (404), in English and Chinese", async ({
    browser,
  }) => {
    const mobile = await phone(browser);
    await mobile.goto(`${site.url}/#/pickup`);
    await mobile.getByLabel("Pickup code").fill("zzz zzz");
    await mobile.getByRole("button", { name: "Open" }).click();
    await expect(mobile.getByRole("alert")).toHaveText(
      "No parcel has this code. Check it and try again.",
    );
    await shootThemes(mobile, "parcel", "pickup-not-found");
    await mobile.getByLabel("Language").selectOption("zh-CN");
    await mobile.getByLabel("取件码").fill("yyy-yyy");
    await mobile.getByRole("button", { name: "打开" }).click();
    await expect(mobile.getByRole("alert")).toHaveText("没有与此取件码对应的包裹。请检查后重试。");
    await noHorizontalScroll(mobile);
    await mobile.context().close();
  });
});

test("the pickup page loads under 150 kB of gzipped JavaScript and no QR library", async ({
  browser,
}) => {
  const mobile = await phone(browser);
  const scripts: Array<{ url: string; body: Promise<Buffer> }> = [];
  mobile.on("response", (res) => {
    if (res.url().endsWith(".js")) scripts.push({ url: res.url(), body: res.body() });
  });
  await mobile.goto(`${site.url}/#/pickup`);
  await expect(mobile.getByLabel("Pickup code")).toBeVisible();
  let total = 0;
  for (const s of scripts) total += gzipSync(await s.body).length;
  expect(scripts.length).toBeGreaterThan(2);
  expect(total).toBeLessThan(150 * 1024);
  expect(scripts.map((s) => s.url).join(" ")).not.toMatch(/\/(send|admin|mine|browser)-/);
  await mobile.context().close();
});

test.describe("my parcels", () => {
  test("lists the parcel; a new code replaces the old one; revoke ends it", async ({ page }) => {
    const { code } = await sendParcel(page, [sources[1], sources[2]], { downloads: 4 });
    await page.getByRole("link", { name: "See my parcels" }).click();
    await expect(page.getByRole("heading", { name: "My parcels" })).toBeVisible();
    const cards = page.getByRole("list", { name: "My parcels" }).getByRole("listitem", {
      name: /^Parcel /,
    });
    const card = cards.first();
    await expect(card.getByText("Ready")).toBeVisible();
    await expect(card.getByText("2 files, 294 KiB")).toBeVisible();
    await expect(card.getByText("4 of 4")).toBeVisible();
    await expect(card.getByText(/^Expires in 6 d 23 h|^Expires in 7 d/)).toBeVisible();
    await shootThemes(page, "parcel", "mine");

    await card.getByRole("button", { name: "New code" }).click();
    await card.getByRole("button", { name: "Yes, new code" }).click();
    const fresh = (await card.getByRole("status", { name: "Pickup code" }).textContent()) ?? "";
    expect(fresh).toMatch(/^[0-9A-Z]{3}-[0-9A-Z]{3}$/);
    expect(fresh).not.toBe(code);
    await expect(card.locator("img.qr")).toHaveAttribute("src", /^data:image\/png/);
    const api = site.harness;
    expect((await api.request("POST", "/pickup/resolve", { body: { code } })).status).toBe(404);
    expect((await api.request("POST", "/pickup/resolve", { body: { code: fresh } })).status).toBe(
      200,
    );
    await shootThemes(page, "parcel", "mine-new-code");

    // The browser keeps the parcel's manage_token (keyed by id) until the parcel ends.
    const tokens = () =>
      page.evaluate(() =>
        Object.keys(localStorage).filter((k) => k.startsWith("gatehouse.parcel.token.")),
      );
    expect((await tokens()).length).toBeGreaterThan(0);
    await card.getByRole("button", { name: "Revoke" }).click();
    await card.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(card.getByText("Revoked")).toBeVisible();
    await expect(card.getByRole("button", { name: "Revoke" })).toHaveCount(0);
    // Revoked here, so it is dropped at once, and stays gone after a refresh.
    await expect.poll(tokens).toHaveLength(0);
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(page.getByRole("heading", { name: "My parcels" })).toBeVisible();
    expect(await tokens()).toHaveLength(0);
    expect((await api.request("POST", "/pickup/resolve", { body: { code: fresh } })).status).toBe(
      410,
    );
  });

  test("a browser that never sent anything sees the empty list", async ({ browser }) => {
    const context = await browser.newContext();
    const fresh = await context.newPage();
    // The shell's GET /policy (which hands out the visitor cookie) is held back: /mine waits
    // for it instead of asking first and being refused.
    let release = () => undefined as void;
    const held = new Promise<void>((ok) => (release = ok));
    let first = true;
    await context.route("**/api/v1/policy", async (route) => {
      if (first) {
        first = false;
        await held;
      }
      await route.continue();
    });
    const mineStatuses: number[] = [];
    fresh.on("response", (res) => {
      if (res.url().endsWith("/api/v1/mine")) mineStatuses.push(res.status());
    });
    await fresh.goto(`${site.url}/#/mine`);
    await expect(fresh.getByRole("heading", { name: "My parcels" })).toBeVisible();
    release();
    await expect(fresh.getByText("Nothing sent from this browser yet.")).toBeVisible();
    expect(mineStatuses).toEqual([200]);
    await shootThemes(fresh, "parcel", "mine-empty");
    await context.close();
  });
});

test.describe("send failures", () => {
  test("a failed file is retried alone; progress shows per file and in total", async ({ page }) => {
    let cut = 0;
    await page.route("**/api/v1/uploads/*/files/*", async (route) => {
      // The first file's bytes are refused by the gateway (a dropped connection would be
      // resumed by itself: see parcel-resume.spec.ts); the rest go through.
      if (route.request().method() !== "HEAD" && cut++ === 0)
        await route.fulfill({
          status: 500,
          contentType: "application/json",
          body: JSON.stringify({
            error: "The file could not be stored",
            code: "upload.store_failed",
          }),
        });
      else await route.continue();
    });
    await page.goto(`${site.url}/#/`);
    await chooseFiles(page, /^Choose files$/, [sources[1].path, sources[2].path]);
    await page.getByRole("button", { name: /^Upload 2 files/ }).click();
    const failed = page.locator(".upload-row[data-state=failed]");
    await expect(failed).toHaveCount(1);
    await expect(failed.getByRole("alert")).toHaveText(/The file could not be stored/);
    await expect(page.locator(".upload-row[data-state=done]")).toHaveCount(1);
    await expect(page.getByRole("progressbar", { name: "Total" })).toBeVisible();
    await shootThemes(page, "parcel", "send-failed");
    await failed.getByRole("button", { name: /^Retry / }).click();
    await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
    expect(cut).toBe(3);
  });

  test("cancel aborts the running uploads, revokes the session and clears the selection", async ({
    page,
  }) => {
    // A slow link (128 KiB/s up): the 3 MiB file is still on its way when cancel is pressed.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 128 * 1024,
    });
    await page.goto(`${site.url}/#/`);
    await chooseFiles(page, /^Choose files$/, [sources[0].path, sources[2].path]);
    await page.getByRole("button", { name: /^Upload 2 files/ }).click();
    await expect(page.getByRole("heading", { name: "Uploading" })).toBeVisible();
    await expect(page.getByText(/^discarded in (59 min|1 h).* unless it is sent$/)).toBeVisible();
    // Speed and time left, per file and in total, once a few progress samples are in.
    const running = page.locator(".upload-row[data-state=uploading]");
    await expect(running.getByText(/\/s · .+ left$/)).toBeVisible();
    await expect(page.locator(".total-line").getByText(/\/s · .+ left$/)).toBeVisible();
    await shootThemes(page, "parcel", "send-progress");
    await page.getByRole("button", { name: "Cancel upload" }).click();
    await expect(page.getByText(/Cancel this upload\?/)).toBeVisible();
    await page
      .getByRole("group", { name: "Cancel upload" })
      .getByRole("button", {
        name: "Cancel upload",
      })
      .click();
    await expect(page.getByText(/^Upload cancelled\. The parcel was withdrawn/)).toBeVisible();
    await expect(page.getByRole("list", { name: "Files" })).toHaveCount(0);
    const states = await page.evaluate(async () => {
      const res = await fetch("/api/v1/mine");
      const body = (await res.json()) as { items: Array<{ state: string }> };
      return body.items.map((p) => p.state);
    });
    expect(states[0]).toBe("revoked");
  });

  test("storage full (507) and a used-up daily allowance (429) are explained in words", async ({
    page,
  }) => {
    const api = site.harness;
    const login = await api.request("POST", "/admin/login", {
      body: { username: site.adminUser, password: site.adminPassword },
    });
    expect(login.status).toBe(200);
    const before = await api.request("GET", "/admin/runtime");
    expect(
      (await api.request("PUT", "/admin/runtime", { body: { data_budget_bytes: 1000 } })).status,
    ).toBe(200);
    try {
      await page.goto(`${site.url}/#/`);
      await chooseFiles(page, /^Choose files$/, [sources[1].path]);
      await page.getByRole("button", { name: /^Upload and get a code/ }).click();
      await expect(page.getByRole("alert")).toHaveText(
        /^The gateway has no room for this right now/,
      );
      await shootThemes(page, "parcel", "send-storage-full");
    } finally {
      await api.request("PUT", "/admin/runtime", { body: before.json });
    }
    const policy = await api.request("GET", "/admin/policy");
    await api.request("PUT", "/admin/policy", { body: { daily_upload_bytes: 1000 } });
    try {
      await page.getByRole("button", { name: /^Upload and get a code/ }).click();
      await expect(page.getByRole("alert")).toHaveText(
        /^Today's upload allowance for this address is used up\. Try again in \d+ (h|min|s)/,
      );
      await page.getByLabel("Language").selectOption("zh-CN");
      await page.getByRole("button", { name: "上传并获取取件码" }).click();
      await expect(page.getByRole("alert")).toHaveText(
        /^此地址今天的上传额度已用完。请在 .+后重试。$/,
      );
    } finally {
      await api.request("PUT", "/admin/policy", {
        body: { daily_upload_bytes: policy.json.daily_upload_bytes },
      });
    }
  });
});

test.describe("send rules from the policy", () => {
  test("file count, sizes and a required password are checked before anything is sent", async ({
    page,
  }) => {
    const api = site.harness;
    expect(
      (
        await api.request("POST", "/admin/login", {
          body: { username: site.adminUser, password: site.adminPassword },
        })
      ).status,
    ).toBe(200);
    const before = (await api.request("GET", "/admin/policy")).json;
    const strict = {
      max_files: 2,
      max_file_bytes: 1024 * 1024,
      max_parcel_bytes: 1024 * 1024 + 500,
      require_password: true,
    };
    expect((await api.request("PUT", "/admin/policy", { body: strict })).status).toBe(200);
    try {
      await page.goto(`${site.url}/#/`);
      await expect(page.getByText("Up to 2 files, 1.00 MiB each, 1.00 MiB in all")).toBeVisible();
      await chooseFiles(
        page,
        /^Choose files$/,
        sources.map((s) => s.path),
      );
      const upload = page.getByRole("button", { name: /^Upload 3 files/ });
      await expect(page.getByText("Too many files: at most 2 per parcel.")).toBeVisible();
      await expect(
        page.getByText("holiday-photo.jpg is larger than the limit of 1.00 MiB per file."),
      ).toBeVisible();
      await expect(page.getByText(/^Together the files are 3.29 MiB; the limit/)).toBeVisible();
      await expect(page.getByText("Enter a password: this gateway requires one.")).toBeVisible();
      await expect(upload).toBeDisabled();
      await shootThemes(page, "parcel", "send-invalid");

      await page.getByRole("button", { name: "Remove holiday-photo.jpg" }).click();
      await expect(page.getByRole("alert")).toHaveCount(0);
      await expect(page.getByRole("button", { name: /^Upload 2 files/ })).toBeDisabled();
      await page.getByLabel("Password", { exact: true }).fill("s3cret");
      await page.getByRole("button", { name: /^Upload 2 files/ }).click();
      await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
      await expect(page.getByText("Protected with a password")).toBeVisible();
    } finally {
      const restore = Object.fromEntries(Object.keys(strict).map((k) => [k, before[k]]));
      await api.request("PUT", "/admin/policy", { body: restore });
    }
  });
});

test.describe("send rules changed meanwhile", () => {
  test("a limit lowered after the page loaded: the 413 is shown and the form follows", async ({
    page,
  }) => {
    const api = site.harness;
    await api.request("POST", "/admin/login", {
      body: { username: site.adminUser, password: site.adminPassword },
    });
    const before = (await api.request("GET", "/admin/policy")).json;
    await page.goto(`${site.url}/#/`);
    await chooseFiles(page, /^Choose files$/, [sources[1].path]);
    expect(
      (await api.request("PUT", "/admin/policy", { body: { max_file_bytes: 1000 } })).status,
    ).toBe(200);
    try {
      await page.getByRole("button", { name: /^Upload and get a code/ }).click();
      // The service's refusal (said by its code, with its limit) and the form's own check,
      // now that it knows the lower limit, say the same.
      await expect(
        page
          .getByRole("alert")
          .filter({ hasText: /^报告 2026\.pdf is larger than the limit of 1000 B per file\.$/ }),
      ).toHaveCount(2);
      await expect(page.getByRole("button", { name: /^Upload and get a code/ })).toBeDisabled();
    } finally {
      await api.request("PUT", "/admin/policy", {
        body: { max_file_bytes: before.max_file_bytes },
      });
    }
  });
});

test.describe("phone layout", () => {
  test("send, the share and my parcels fit a 360 px screen", async ({ browser }) => {
    const mobile = await phone(browser);
    await mobile.goto(`${site.url}/#/`);
    await chooseFiles(
      mobile,
      /^Choose files$/,
      sources.map((s) => s.path),
    );
    await noHorizontalScroll(mobile);
    await shootThemes(mobile, "parcel", "send-phone");
    await mobile.getByRole("button", { name: /^Upload 3 files/ }).click();
    await expect(mobile.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
    await noHorizontalScroll(mobile);
    await shootThemes(mobile, "parcel", "send-done-phone");
    await mobile.goto(`${site.url}/#/mine`);
    await expect(mobile.getByText("Ready")).toBeVisible();
    await noHorizontalScroll(mobile);
    await shootThemes(mobile, "parcel", "mine-phone");
    await mobile.context().close();
  });
});

test.describe("pickup limits", () => {
  let own: ParcelSite;
  test.beforeAll(async () => {
    own = await startParcelSite();
  });
  test.afterAll(async () => {
    await own?.close();
  });

  /** A published one-file parcel made through the API (the sender is not under test here). */
  async function apiParcel(password: string): Promise<string> {
    const api = own.harness;
    const data = Buffer.from("locked content");
    const created = await api.request("POST", "/uploads", {
      body: { files: [{ name: "secret.txt", size: data.length }], password },
    });
    expect(created.status).toBe(201);
    const { id, manage_token: token, files } = created.json;
    const auth = { authorization: `Bearer ${token}` };
    const put = await api.request("PUT", `/uploads/${id}/files/${files[0].id}`, {
      raw: data,
      headers: auth,
    });
    expect(put.status).toBe(200);
    const published = await api.request("POST", `/uploads/${id}/publish`, { headers: auth });
    expect(published.status).toBe(200);
    return published.json.code as string;
  }

  test("too many wrong passwords lock the parcel (423); too many failures wait (429)", async ({
    browser,
  }) => {
    const code = await apiParcel("right one");
    const mobile = await phone(browser);
    await mobile.goto(`${own.url}/#/pickup/${code}`);
    await expect(mobile.getByText(/This parcel is protected/)).toBeVisible();
    for (let i = 0; i < 4; i++) {
      await mobile.getByLabel("Password").fill(`wrong ${i}`);
      await mobile.getByRole("button", { name: "Unlock" }).click();
      await expect(mobile.getByRole("alert")).toHaveText(/Wrong password/);
      await expect(mobile.getByRole("button", { name: "Unlock" })).toBeEnabled();
    }
    // The fifth wrong password locks it, and the page says so at once.
    await mobile.getByLabel("Password").fill("wrong 4");
    await mobile.getByRole("button", { name: "Unlock" }).click();
    await expect(mobile.getByRole("alert")).toHaveText(
      /that was the last try: the parcel is now locked/,
    );
    // Even with the code entered again it stays locked.
    await mobile.getByRole("button", { name: "Open" }).click();
    await expect(mobile.getByRole("alert")).toHaveText(/locked after too many wrong passwords/);
    await shootThemes(mobile, "parcel", "pickup-locked");

    // Five wrong passwords so far; five unknown codes reach the limit of ten per client.
    for (const wrong of ["AAA-AAA", "BBB-BBB", "CCC-CCC", "DDD-DDD", "EEE-EEE"]) {
      await mobile.getByLabel("Pickup code").fill(wrong);
      await mobile.getByRole("button", { name: "Open" }).click();
      await expect(mobile.getByRole("alert")).toHaveText(/No parcel has this code/);
    }
    await mobile.getByLabel("Pickup code").fill("FFF-FFF");
    await mobile.getByRole("button", { name: "Open" }).click();
    // The reason in the alert; the wait once, on the button that counts it down.
    await expect(mobile.getByRole("alert")).toHaveText(
      /^Too many wrong codes or passwords from this device\./,
    );
    await expect(mobile.getByRole("alert")).not.toContainText(/\d+ (min|s)/);
    await expect(mobile.getByRole("button", { name: /^Wait \d+ (min|s)/ })).toBeDisabled();
    await noHorizontalScroll(mobile);
    await shootThemes(mobile, "parcel", "pickup-too-many");
    await mobile.context().close();
  });
});
