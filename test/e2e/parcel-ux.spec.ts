import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { openParcelContext, type Lang } from "./support/parcel-page.js";
import { shootThemes, VIEWPORTS, type Size } from "./support/shots.js";

/**
 * The parcel page as a first-time user meets it: cancelling an upload, what "downloads
 * allowed" means for several files, wrong passwords and a locked parcel, sending text, and a
 * clean first visit to the pickup page (icons, no failed request, no admin entry).
 */

let site: ParcelSite;
let dir: string;
const paths: Record<string, string> = {};

test.beforeAll(async () => {
  site = await startParcelSite();
  dir = mkdtempSync(join(tmpdir(), "gh-parcel-ux-"));
  const make = (name: string, size: number) => {
    paths[name] = join(dir, name);
    writeFileSync(paths[name], Buffer.alloc(size, name.length));
  };
  make("holiday video.mp4", 50 * 1024 * 1024);
  make("report.pdf", 20_000);
  make("notes.txt", 1_500);
  make("photo.jpg", 40_000);
  make("later.txt", 300);
});

test.afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A context of the parcel page that accepts downloads (the laptop, in English, unless said). */
function openContext(
  browser: Browser,
  size: Size = "desktop",
  lang: Lang = "en",
): Promise<BrowserContext> {
  return openParcelContext(browser, size, lang, { acceptDownloads: true });
}

async function chooseFiles(page: Page, names: string[]) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: /^Choose files$|^选择文件$/ }).click();
  await (await chooser).setFiles(names.map((n) => paths[n]));
}

/** Sends through the page; answers the pickup code shown at the end. */
async function send(page: Page, files: string[], opts: { password?: string } = {}) {
  await page.goto(`${site.url}/#/`);
  await chooseFiles(page, files);
  if (opts.password) await page.getByLabel("Password (optional)").fill(opts.password);
  await page.getByRole("button", { name: /^Upload/ }).click();
  await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
  return (await page.getByRole("status", { name: "Pickup code" }).textContent()) ?? "";
}

const setPolicy = (patch: Record<string, unknown>) =>
  site.harness.service.ctx.setPolicy({ ...site.harness.service.ctx.policy(), ...patch });

test.describe("cancel", () => {
  test("a cancelled upload leaves nothing selected, says so, and its session is revoked", async ({
    browser,
  }) => {
    const context = await openContext(browser);
    const page = await context.newPage();
    // A slow link (256 KiB/s up): the 50 MB file is still on its way when cancel is pressed.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 10,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    });
    await page.goto(`${site.url}/#/`);
    await chooseFiles(page, ["holiday video.mp4", "report.pdf"]);
    await page.getByRole("button", { name: "Upload 2 files and get a code" }).click();
    await expect(page.getByRole("heading", { name: "Uploading" })).toBeVisible();
    await expect(page.locator(".upload-row[data-state=uploading]").first()).toBeVisible();
    await page.getByRole("button", { name: "Cancel upload" }).click();
    await expect(page.getByText("Cancel this upload? The parcel is withdrawn")).toBeVisible();
    await page
      .getByRole("group", { name: "Cancel upload" })
      .getByRole("button", { name: "Cancel upload" })
      .click();

    await expect(page.getByRole("status").filter({ hasText: "Upload cancelled." })).toHaveText(
      /The parcel was withdrawn: nothing was shared, and the 2 files are no longer selected\./,
    );
    await expect(page.getByRole("list", { name: "Files" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Choose files" })).toBeVisible();
    await shootThemes(page, "parcel-ux", "send-cancelled-desktop");
    await page.getByLabel("Language").selectOption("zh-CN");
    await page.setViewportSize(VIEWPORTS.phone);
    await expect(page.getByRole("status").filter({ hasText: "上传已取消。" })).toContainText(
      "这 2 个文件也已从表单中移除",
    );
    await shootThemes(page, "parcel-ux", "send-cancelled-phone-zh");
    await page.getByLabel("语言").selectOption("en");
    await page.setViewportSize(VIEWPORTS.desktop);

    // The service agrees: the session is revoked, so nothing can ever be published from it.
    const mine = await page.evaluate(async () => {
      const res = await fetch("/api/v1/mine");
      return ((await res.json()) as { items: Array<{ state: string; files: unknown[] }> }).items;
    });
    expect(mine[0]).toMatchObject({ state: "revoked" });
    expect(mine[0].files).toHaveLength(2);

    // Choosing new files starts a new selection: the cancelled files do not come back.
    await chooseFiles(page, ["later.txt"]);
    const list = page.getByRole("list", { name: "Files" });
    await expect(list.getByRole("listitem")).toHaveCount(1);
    await expect(list).toContainText("later.txt");
    await expect(page.getByText("Upload cancelled.")).toHaveCount(0);
    await context.close();
  });
});

test.describe("downloads allowed", () => {
  test("the send form explains per-file counting where the number is chosen and suggests the ZIP", async ({
    browser,
  }) => {
    for (const [size, lang] of [
      ["desktop", "en"],
      ["phone", "zh-CN"],
    ] as const) {
      const context = await openContext(browser, size, lang);
      const page = await context.newPage();
      await page.goto(`${site.url}/#/`);
      const note = page.getByTestId("downloads-note");
      if (lang === "en") {
        await expect(note).toHaveText(
          /^Each file downloaded counts as one download; “Download all \(ZIP\)” counts as one for every file together\.$/,
        );
        await chooseFiles(page, ["report.pdf", "notes.txt", "photo.jpg"]);
        const input = page.getByLabel("Downloads allowed");
        await input.fill("10");
        await expect(note).toContainText(
          "With 3 files, 10 downloads let about 3 people take every file one at a time, but 10 people when they use “Download all (ZIP)”.",
        );
        // The field itself points at the explanation, for screen readers too.
        await expect(input).toHaveAccessibleDescription(/1 to 1000 Each file downloaded counts/);
        await input.fill("2");
        await expect(note).toContainText(
          "2 downloads are fewer than the 3 files: recipients get every file only with “Download all (ZIP)”.",
        );
        await input.fill("10");
      } else {
        await chooseFiles(page, ["report.pdf", "notes.txt", "photo.jpg"]);
        await page.getByLabel("允许下载次数").fill("10");
        await expect(note).toContainText(
          "共 3 个文件：逐个下载时，10 次下载只够约 3 人取走全部文件",
        );
      }
      await note.scrollIntoViewIfNeeded();
      await shootThemes(page, "parcel-ux", `send-downloads-${size}-${lang}`);
      await context.close();
    }
  });
});

test.describe("wrong passwords", () => {
  test("each wrong password says how many tries are left; the owner sees the lock and the way out", async ({
    browser,
  }) => {
    setPolicy({ password_attempts: 3 });
    try {
      const ownerContext = await openContext(browser);
      const owner = await ownerContext.newPage();
      const code = await send(owner, ["report.pdf", "notes.txt"], { password: "right one" });

      const phoneContext = await openContext(browser, "phone");
      const mobile = await phoneContext.newPage();
      await mobile.goto(`${site.url}/#/pickup/${code}`);
      const password = mobile.getByLabel("Password");
      await password.fill("wrong 1");
      await mobile.getByRole("button", { name: "Unlock" }).click();
      await expect(mobile.getByRole("alert")).toHaveText(
        "Wrong password. 2 tries left before the parcel is locked; check the password with the sender.",
      );
      await shootThemes(mobile, "parcel-ux", "pickup-tries-left-phone");
      await password.fill("wrong 2");
      await mobile.getByRole("button", { name: "Unlock" }).click();
      await expect(mobile.getByRole("alert")).toHaveText(/^Wrong password\. 1 try left before/);
      await mobile.getByLabel("Language").selectOption("zh-CN");
      await expect(mobile.getByRole("alert")).toHaveText(/^密码错误。再错 1 次包裹就会被锁定/);
      await shootThemes(mobile, "parcel-ux", "pickup-tries-left-phone-zh");
      await mobile.getByLabel("语言").selectOption("en");
      await password.fill("wrong 3");
      await mobile.getByRole("button", { name: "Unlock" }).click();
      await expect(mobile.getByRole("alert")).toHaveText(
        /^Wrong password, and that was the last try: the parcel is now locked\./,
      );
      await expect(mobile.getByLabel("Pickup code")).toBeVisible();

      // The owner's list says it is locked, that a new code does not help, and what does.
      await owner.goto(`${site.url}/#/mine`);
      const card = owner.getByRole("listitem", { name: "Parcel report.pdf and 1 more" });
      await expect(card.getByText("Locked", { exact: true })).toBeVisible();
      await expect(card).toContainText("A new code does not unlock it.");
      await expect(card).toContainText("Ask the administrator of this gateway to reissue it");
      await expect(card.getByRole("button", { name: "New code" })).toHaveCount(0);
      await shootThemes(owner, "parcel-ux", "mine-locked-desktop");
      await owner.getByLabel("Language").selectOption("zh-CN");
      const zhCard = owner.getByRole("listitem", { name: "包裹 report.pdf 等 2 个文件" });
      await expect(zhCard.getByText("已锁定", { exact: true })).toBeVisible();
      await expect(zhCard).toContainText("生成新取件码不能解锁");
      await shootThemes(owner, "parcel-ux", "mine-locked-desktop-zh");
      await phoneContext.close();
      await ownerContext.close();
    } finally {
      setPolicy({ password_attempts: 5 });
    }
  });
});

test.describe("my parcels", () => {
  test("names each parcel by its files, never by its id", async ({ browser }) => {
    const context = await openContext(browser, "phone");
    const page = await context.newPage();
    await page.goto(`${site.url}/#/`);
    await chooseFiles(page, ["photo.jpg", "notes.txt", "report.pdf"]);
    await page.getByRole("button", { name: /^Upload 3 files/ }).click();
    await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
    await page.goto(`${site.url}/#/mine`);
    const card = page.getByRole("listitem", { name: "Parcel photo.jpg and 2 more" });
    await expect(card).toBeVisible();
    await expect(
      card.getByRole("group", { name: "Actions for photo.jpg and 2 more" }),
    ).toBeVisible();
    const ids = await page.evaluate(async () => {
      const res = await fetch("/api/v1/mine");
      return ((await res.json()) as { items: Array<{ id: string }> }).items.map((p) => p.id);
    });
    const text =
      (await page.locator("main").innerText()) + (await page.locator("main").innerHTML());
    for (const id of ids) expect(text).not.toContain(id.slice(0, 8));
    await shootThemes(page, "parcel-ux", "mine-names-phone");
    await context.close();
  });
});

test.describe("text", () => {
  test("typed text travels as a .txt file and is read and copied on the pickup page, one download", async ({
    browser,
  }) => {
    const words = "Wi-Fi for guests: gatehouse-guest\n密码：春天 2026 ✓\n\n  indented line";
    const context = await openContext(browser);
    const page = await context.newPage();
    await page.goto(`${site.url}/#/`);
    await page.getByRole("tab", { name: "Text" }).click();
    await expect(page.getByRole("tab", { name: "Text" })).toHaveAttribute("aria-selected", "true");
    const box = page.getByLabel("Text to send");
    await box.fill(words);
    await expect(page.getByText("Sent as the file “text.txt”")).toBeVisible();
    await shootThemes(page, "parcel-ux", "send-text-desktop");
    await page.getByLabel("Language").selectOption("zh-CN");
    await page.setViewportSize(VIEWPORTS.phone);
    await expect(page.getByRole("heading", { name: "发送文字" })).toBeVisible();
    await shootThemes(page, "parcel-ux", "send-text-phone-zh");
    await page.getByLabel("语言").selectOption("en");
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.getByRole("button", { name: "Upload the text and get a code" }).click();
    await expect(page.getByRole("heading", { name: /Ready to pick up/ })).toBeVisible();
    const code = (await page.getByRole("status", { name: "Pickup code" }).textContent()) ?? "";
    // Sent: the text box starts empty for the next parcel.
    await page.getByRole("button", { name: "Send something else" }).click();
    await expect(page.getByLabel("Text to send")).toHaveValue("");

    for (const [size, lang] of [
      ["phone", "en"],
      ["desktop", "zh-CN"],
    ] as const) {
      const other = await openContext(browser, size, lang);
      await other.grantPermissions(["clipboard-read", "clipboard-write"], { origin: site.url });
      const mobile = await other.newPage();
      await mobile.goto(`${site.url}/#/pickup/${code}`);
      const left = mobile.getByTestId("downloads-left");
      const before = Number(await left.textContent());
      // Opening the page costs nothing; reading the text is a real download of the file.
      // Nothing the sender typed shows before the text is opened (not even in the file's name).
      await expect(mobile.getByText("text.txt").first()).toBeVisible();
      await expect(mobile.getByText(/Wi-Fi for guests/)).toHaveCount(0);
      const show = lang === "en" ? "Show the text of" : "查看";
      await mobile.getByRole("button", { name: new RegExp(`^${show}`) }).click();
      const shown = mobile.locator(".pickup-text-body");
      await expect(shown).toHaveText(words, { useInnerText: true });
      await expect(left).toHaveText(String(before - 1));
      await mobile.getByRole("button", { name: lang === "en" ? "Copy text" : "复制文字" }).click();
      expect(await mobile.evaluate(() => navigator.clipboard.readText())).toBe(words);
      await shootThemes(mobile, "parcel-ux", `pickup-text-${size}-${lang}`);
      await other.close();
    }
    await context.close();
  });
});

test.describe("first visit", () => {
  test("the pickup page and My parcels open with no failed request or console error; icons, a manifest, no admin entry", async ({
    browser,
  }) => {
    for (const size of ["desktop", "phone"] as const) {
      const context = await openContext(browser, size);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning")
          problems.push(`console ${m.type()}: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      page.on("requestfailed", (r) => problems.push(`failed: ${r.url()}`));
      page.on("response", (r) => {
        if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
      });
      await page.goto(`${site.url}/#/pickup`);
      await expect(page.getByLabel("Pickup code")).toBeVisible();
      await page.waitForLoadState("networkidle");
      // Headless Chromium does not fetch icons itself: fetch what the page names, as a tab would.
      const linked = await page.evaluate(async () => {
        const links = Array.from(
          document.querySelectorAll<HTMLLinkElement>(
            "link[rel=icon], link[rel=apple-touch-icon], link[rel=manifest]",
          ),
        );
        const out: Array<[string, number]> = [];
        for (const link of [...links.map((l) => l.href), `${location.origin}/favicon.ico`]) {
          out.push([link, (await fetch(link)).status]);
        }
        return out;
      });
      expect(linked.length).toBe(5);
      for (const [href, status] of linked) expect(status, href).toBe(200);
      expect(problems).toEqual([]);

      // Recipients see no way into the administration; senders still do.
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Pick up" })).toBeVisible();
      await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(0);
      await expect(page.getByRole("link", { name: "Admin" })).toHaveCount(0);
      await shootThemes(page, "parcel-ux", `pickup-first-visit-${size}`);
      await page.goto(`${site.url}/#/`);
      await expect(nav.getByRole("link", { name: "Admin" })).toBeVisible();
      await context.close();
    }

    // My parcels on a first visit waits for the visitor cookie instead of being refused.
    const fresh = await openContext(browser);
    const mine = await fresh.newPage();
    const refused: string[] = [];
    mine.on("response", (r) => {
      if (r.status() >= 400) refused.push(`${r.status()}: ${r.url()}`);
    });
    mine.on("console", (m) => {
      if (m.type() === "error") refused.push(`console: ${m.text()}`);
    });
    // /policy (it sets the cookie) is held until the page has drawn My parcels and run its
    // effects (two animation frames): /mine must not have gone first.
    let releasePolicy: () => void = () => undefined;
    const policyHeld = new Promise<void>((release) => (releasePolicy = release));
    const asked: string[] = [];
    mine.on("request", (r) => asked.push(new URL(r.url()).pathname));
    await mine.route("**/api/v1/policy", async (route) => {
      await policyHeld;
      await route.continue();
    });
    await mine.goto(`${site.url}/#/mine`);
    await expect(mine.locator("main h1")).toBeVisible();
    await mine.evaluate(
      () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
    );
    expect(asked).toContain("/api/v1/policy");
    expect(asked).not.toContain("/api/v1/mine");
    releasePolicy();
    await expect(mine.getByText("Nothing sent from this browser yet.")).toBeVisible();
    await mine.waitForLoadState("networkidle");
    expect(refused).toEqual([]);
    await fresh.close();

    // Icons for tabs and home screens, and the manifest that names them.
    const manifest = await fetch(`${site.url}/manifest.webmanifest`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get("content-type")).toMatch(/^application\/manifest\+json/);
    const body = (await manifest.json()) as {
      name: string;
      start_url: string;
      icons: Array<{ src: string; sizes: string }>;
    };
    expect(body).toMatchObject({ name: "Gatehouse", start_url: "./#/pickup" });
    expect(body.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(["192x192", "512x512"]));
    for (const path of ["favicon.ico", ...body.icons.map((i) => i.src)]) {
      const res = await fetch(`${site.url}/${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toMatch(/^image\//);
    }
    const touch = await fetch(`${site.url}/icons/apple-touch-icon.png`);
    expect(touch.status).toBe(200);
  });
});
