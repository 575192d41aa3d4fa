import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { CookieJar } from "../helpers/parcel-harness.js";
import { bearer, createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { adminApi, openParcelPage } from "./support/parcel-page.js";
import { shootThemes } from "./support/shots.js";

/**
 * The audit log after a parcel sent and withdrawn in a browser is cleaned up: its records say
 * a browser did it (not a script), still name the parcel by its files, size and the end of
 * its code, and "show" leads to its history rather than an empty search. The overview says
 * what each of its file counts counts.
 */

let site: ParcelSite;
let dir: string;

test.beforeAll(async () => {
  site = await startParcelSite();
  dir = mkdtempSync(join(tmpdir(), "gh-parcel-audit-ux-"));
});

test.afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

const W = {
  en: {
    sent: "Parcel sent",
    withdrawn: "Withdrawn by the sender",
    denied: "Pickup refused",
    browser: /^Browser [0-9a-f]{8} · /,
    script: "Script (token)",
    removed: (name: string) => `Removed parcel: ${name}`,
    facts: (tail: string) => new RegExp(`^1 file · 29\\.3 KiB · code ending ${tail} · removed `),
    records: "Show its records",
    showParcel: "Show parcel",
    reason: "Reason: revoked",
    cleanup: "Run cleanup now",
    audit: "Audit log",
    overview: "Overview",
    files: "File records",
    blobs: "Distinct contents on disk",
    budget: "File budget (files of live parcels)",
    note: /^File records: every file of every parcel, ended ones too until cleanup removes them\./,
  },
  "zh-CN": {
    sent: "包裹已发送",
    withdrawn: "发件人撤回",
    denied: "取件被拒绝",
    browser: /^浏览器 [0-9a-f]{8} · /,
    script: "脚本（令牌）",
    removed: (name: string) => `已清理的包裹：${name}`,
    facts: (tail: string) => new RegExp(`^1 个文件 · 29\\.3 KiB · 取件码末尾 ${tail} · `),
    records: "查看它的记录",
    showParcel: "查看包裹",
    reason: "原因：已撤销",
    cleanup: "立即清理",
    audit: "审计日志",
    overview: "概览",
    files: "文件记录",
    blobs: "磁盘上的不同内容",
    budget: "文件数配额（进行中包裹的文件）",
    note: /^文件记录：所有包裹的每个文件，已结束的包裹也计入，直到被清理。/,
  },
} as const;

for (const [size, lang] of [
  ["desktop", "en"],
  ["phone", "zh-CN"],
  ["phone", "en"],
  ["desktop", "zh-CN"],
] as const) {
  test(`a browser's parcel stays nameable in the audit after cleanup, and is said to be a browser's (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = W[lang];
    const name = `agenda-${size}.pdf`;
    const file = join(dir, name);
    writeFileSync(file, Buffer.alloc(30_000, 3));
    const page = await openParcelPage(browser, size, lang);

    // Sent and withdrawn in the browser, as a person does.
    await page.goto(`${site.url}/#/`);
    const chooser = page.waitForEvent("filechooser");
    await page.getByRole("button", { name: /^Choose files$|^选择文件$/ }).click();
    await (await chooser).setFiles([file]);
    await page.getByRole("button", { name: /^Upload|^上传/ }).click();
    const shown = page.getByRole("status", { name: /^Pickup code$|^取件码$/ });
    await expect(shown).toBeVisible();
    const code = (await shown.textContent()) ?? "";
    await page.goto(`${site.url}/#/mine`);
    const card = page.locator(".parcel-card").first();
    await card.getByRole("button", { name: /^Revoke$|^撤销$/ }).click();
    await card.getByRole("button", { name: /^Yes, revoke$|^确认撤销$/ }).click();
    await expect(card.locator(".badge-bad")).toBeVisible();
    // Ended: it says how many downloads were taken, not "10 of 10" left.
    await expect(card.locator(".parcel-facts")).toContainText(
      lang === "en" ? "Downloads taken0 of 10" : "已下载次数0 / 10",
    );
    const denied = await site.harness.request("POST", "/pickup/resolve", {
      body: { code },
      jar: new CookieJar(),
    });
    expect(denied.status).toBe(410);

    // The administrator looks at the log: the browser did it.
    await page.goto(`${site.url}/#/admin/audit`);
    await page.getByLabel(lang === "en" ? "Username" : "用户名").fill(site.adminUser);
    await page
      .getByLabel(lang === "en" ? "Password" : "密码", { exact: true })
      .fill(site.adminPassword);
    await page.getByRole("button", { name: lang === "en" ? "Sign in" : "登录" }).click();
    const rows = page.getByTestId("audit-row").filter({ hasText: name });
    const row = (action: string) =>
      rows.filter({ has: page.locator(`[data-action="${action}"]`) }).first();
    await expect(row("parcel.publish")).toContainText(w.sent);
    for (const action of ["upload.create", "parcel.publish", "parcel.revoke"]) {
      const source = row(action).locator("td").nth(2);
      await expect(source).toHaveText(w.browser);
      await expect(source).not.toContainText(w.script);
    }
    await expect(row("parcel.revoke")).toContainText(w.withdrawn);
    await expect(row("pickup.deny")).toContainText(w.reason);

    // Cleanup removes the parcel; its records still say which one it was.
    await page.getByRole("link", { name: w.overview }).click();
    await page.getByRole("button", { name: w.cleanup }).click();
    await expect(page.getByTestId("cleanup-result")).toBeVisible();
    await page.getByRole("link", { name: w.audit }).click();
    const publish = row("parcel.publish");
    await expect(publish).toContainText(w.removed(name));
    await expect(publish.locator(".adm-target-facts")).toHaveText(
      w.facts(code.replace("-", "").slice(-2)),
    );
    await expect(publish.getByRole("button", { name: w.showParcel })).toHaveCount(0);
    await shootThemes(page, "parcel-audit-ux", `removed-${size}-${lang}`);
    await publish.getByRole("button", { name: w.records }).click();
    await expect(page.getByTestId("audit-count")).toHaveText(
      lang === "en" ? "4 records match" : "匹配 4 条记录",
    );
    await expect(page.getByTestId("audit-row")).toHaveCount(4);
    await shootThemes(page, "parcel-audit-ux", `records-${size}-${lang}`);
    await page.context().close();
  });
}

for (const [size, lang] of [
  ["desktop", "en"],
  ["phone", "zh-CN"],
  ["phone", "en"],
  ["desktop", "zh-CN"],
] as const) {
  test(`the overview says what each file count counts (${size}, ${lang})`, async ({ browser }) => {
    const w = W[lang];
    const page = await openParcelPage(browser, size, lang);
    await page.goto(`${site.url}/#/admin/stats`);
    await page.getByLabel(lang === "en" ? "Username" : "用户名").fill(site.adminUser);
    await page
      .getByLabel(lang === "en" ? "Password" : "密码", { exact: true })
      .fill(site.adminPassword);
    await page.getByRole("button", { name: lang === "en" ? "Sign in" : "登录" }).click();
    for (const label of [w.files, w.blobs])
      await expect(page.getByText(label, { exact: true })).toBeVisible();
    await expect(page.getByRole("meter", { name: w.budget })).toBeVisible();
    await expect(page.getByTestId("stats-files-note")).toHaveText(w.note);
    await shootThemes(page, "parcel-audit-ux", `overview-${size}-${lang}`);
    await page.context().close();
  });
}

/**
 * Lets a test hold back React's scheduled renders and release them in order: the page as a busy
 * machine runs it, where a timer that has come due runs before a render queued first. React's
 * scheduler posts its renders through the MessageChannel it opens as the page's scripts load;
 * only channels opened then are held (the test clock opens its own later, and must run).
 */
function holdableRenders(): void {
  const w = window as unknown as {
    holdRenders: boolean;
    holdableChannels: number;
    releaseRenders(): void;
  };
  const held: Array<() => void> = [];
  w.holdRenders = false;
  w.holdableChannels = 0;
  w.releaseRenders = () => {
    w.holdRenders = false;
    for (const deliver of held.splice(0)) deliver();
  };
  let loading = true;
  document.addEventListener("DOMContentLoaded", () => (loading = false));
  const Native = window.MessageChannel;
  window.MessageChannel = class extends Native {
    constructor() {
      super();
      if (!loading) return;
      w.holdableChannels++;
      const post = this.port2.postMessage.bind(this.port2);
      this.port2.postMessage = ((message: unknown) => {
        if (w.holdRenders) held.push(() => post(message));
        else post(message);
      }) as MessagePort["postMessage"];
    }
  };
}

test("a row's “Show its records” wins over the Target field's text, however late the page renders", async ({
  browser,
}) => {
  const h = site.harness;
  const up = await createUpload(h, { "minutes.pdf": 64 });
  expect((await uploadAndPublish(h, up)).status).toBe(200);
  const revoke = await h.request("POST", `/parcels/${up.id}/revoke`, {
    headers: bearer(up.manage_token),
  });
  expect(revoke.status).toBe(200);
  const admin = await adminApi(site);
  expect((await admin.call("POST", "/admin/cleanup")).status).toBe(200);
  const target = `parcel:${up.id}`;
  const history = await admin.call("GET", `/admin/audit?target=${encodeURIComponent(target)}`);
  const total = (history.json as { total: number }).total;
  expect(total).toBeGreaterThanOrEqual(3);

  const page = await openParcelPage(browser, "desktop", "en");
  await page.addInitScript(holdableRenders);
  // The text fields' settle timer runs only when the test moves the clock.
  await page.clock.install();
  await page.goto(`${site.url}/#/admin/audit`);
  await page.getByLabel("Username").fill(site.adminUser);
  await page.getByLabel("Password", { exact: true }).fill(site.adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  const count = page.getByTestId("audit-count");
  const field = page.getByLabel("Target", { exact: true });
  const show = page
    .getByTestId("audit-row")
    .filter({ hasText: "minutes.pdf" })
    .filter({ has: page.locator('[data-action="parcel.publish"]') })
    .getByRole("button", { name: "Show its records" });
  await expect(show).toBeVisible();
  expect(
    await page.evaluate(() => (window as unknown as { holdableChannels: number }).holdableChannels),
  ).toBe(1);
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
  const sent: URL[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/v1/admin/audit?")) sent.push(new URL(r.url()));
  });

  // The row is clicked, and the render after it comes only once the text would have settled
  // (300 ms): the list still shows that parcel's records, the field names it, and no request
  // went out without it.
  const showRecordsLate = async () => {
    sent.length = 0;
    await page.evaluate(() => ((window as unknown as { holdRenders: boolean }).holdRenders = true));
    await show.click();
    await page.clock.runFor(1_000);
    await page.evaluate(() => (window as unknown as { releaseRenders(): void }).releaseRenders());
    await expect(field).toHaveValue(target);
    await expect(count).toHaveText(`${total} records match`);
    await expect(page.getByTestId("audit-row")).toHaveCount(total);
    expect(sent.map((u) => u.searchParams.get("target"))).toEqual([target]);
  };
  // Nothing typed (the field's text was still the empty one when the row set it).
  await showRecordsLate();
  // Typed into Target, and the row clicked before that text settled.
  const cleared = page.waitForResponse(
    (r) => r.url().includes("/api/v1/admin/audit?") && !new URL(r.url()).searchParams.has("target"),
  );
  await page.getByRole("button", { name: "Clear filters" }).click();
  await cleared;
  await expect(field).toHaveValue("");
  await field.fill("agenda");
  await showRecordsLate();
  await page.context().close();
});
