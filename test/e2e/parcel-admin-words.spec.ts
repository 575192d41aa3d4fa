import { expect, test, type Page, type Request } from "@playwright/test";
import { CookieJar } from "../helpers/parcel-harness.js";
import { bearer, createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { adminApi, signInAdmin, type AdminApi } from "./support/parcel-page.js";
import { atBothSizes, DESKTOP, shootThemes } from "./support/shots.js";

/**
 * The parcel admin console as a person reads it: contradicting settings are refused before
 * and by the service, parcels are named by their files, the audit log speaks in words and
 * filters as it is typed into, counts have their plurals, and share addresses are translated.
 * Against the real parcel service with a LAN entry beside this computer's.
 */
let site: ParcelSite;
/** The test's own admin session for checking what the UI did. */
let admin: AdminApi;
let bigId = "";
let lockedId = "";

test.beforeAll(async () => {
  site = await startParcelSite({
    entries: ["http://127.0.0.1:PORT", "http://localhost:PORT", "http://192.168.1.20:PORT"],
  });
  const h = site.harness;
  const big = await createUpload(h, {
    "Quarterly report 2026.pdf": 300,
    "notes.txt": 20,
    "photo-1.jpg": 100,
    "photo-2.jpg": 100,
  });
  expect((await uploadAndPublish(h, big)).status).toBe(200);
  bigId = big.id;
  const single = await createUpload(h, { "invoice.pdf": 50 });
  const singleShare = await uploadAndPublish(h, single);
  expect(singleShare.status).toBe(200);
  // Picked up once, so the audit log has a download started and finished to say in words.
  const reader = new CookieJar();
  const resolved = await h.request("POST", "/pickup/resolve", {
    body: { code: singleShare.json.code, password: "" },
    jar: reader,
  });
  expect(resolved.status).toBe(200);
  const fileId = (await h.request("GET", "/pickup", { jar: reader })).json.files[0].id as string;
  const download = await h.request("GET", `/pickup/files/${fileId}/download`, { jar: reader });
  expect(download.status).toBe(200);
  const locked = await createUpload(h, { "contract.pdf": 64 }, { password: "right one" });
  const share = await uploadAndPublish(h, locked);
  lockedId = locked.id;
  for (let i = 0; i < 5; i++) {
    const r = await h.request("POST", "/pickup/resolve", {
      body: { code: share.json.code, password: `wrong ${i}` },
      jar: new CookieJar(),
    });
    expect(r.status).toBe(401);
  }
  const gone = await createUpload(h, { "withdrawn.zip": 32 });
  await uploadAndPublish(h, gone);
  const revoke = await h.request("POST", `/parcels/${gone.id}/revoke`, {
    headers: bearer(gone.manage_token),
  });
  expect(revoke.status).toBe(200);
  await createUpload(h, { "still-uploading.bin": 4096 });
  admin = await adminApi(site);
});

test.afterAll(async () => {
  await site?.close();
});

async function chinese(page: Page): Promise<void> {
  await page.getByLabel("Language").selectOption("zh-CN");
  await expect(page.getByRole("heading", { name: "包裹管理" })).toBeVisible();
}

async function english(page: Page): Promise<void> {
  await page.getByLabel("语言").selectOption("en");
  await expect(page.getByRole("heading", { name: "Parcel administration" })).toBeVisible();
}

/** Light and dark at the desktop and the phone size. */
async function shootSizes(page: Page, name: string): Promise<void> {
  await atBothSizes(page, async (w) => {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, `${name} at ${w} px`).toBeLessThanOrEqual(w);
    await shootThemes(page, "parcel-admin-words", `${name}-${w}`);
  });
}

/** Latin letters outside ids, file names, addresses and units: untranslated English. */
async function englishWords(page: Page, selector: string): Promise<string[]> {
  const cells = await page.locator(selector).allInnerTexts();
  // Ids (long runs of URL-safe characters) are data, not words.
  const text = cells.join("\n").replace(/[A-Za-z0-9_-]{16,}/g, " ");
  return (text.match(/\b[A-Za-z]{4,}\b/g) ?? []).filter(
    (w) => !/^(HTTPS|localhost|admin|GiB|MiB|KiB|TiB|Shanghai|Asia|ZIP)$/.test(w),
  );
}

test.describe.configure({ mode: "serial" });

test("settings: a default above its maximum is refused beside both fields and by the service", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  await signInAdmin(page, site, "settings");
  const policy = page.getByTestId("policy-form");
  const puts: Request[] = [];
  page.on("request", (r) => {
    if (r.method() === "PUT" && r.url().endsWith("/admin/policy")) puts.push(r);
  });

  const defaultDays = policy.getByLabel("Default term (days)");
  const maxDays = policy.getByLabel("Longest term (days)");
  await defaultDays.fill("40");
  await expect(policy.getByText("Must not be more than the longest term (30 days).")).toBeVisible();
  await expect(policy.getByText("Must not be less than the default term (40 days).")).toBeVisible();
  await expect(defaultDays).toHaveAttribute("aria-invalid", "true");
  await expect(maxDays).toHaveAttribute("aria-invalid", "true");
  // The error is announced with each field.
  await expect(defaultDays).toHaveAccessibleDescription(
    "Must not be more than the longest term (30 days).",
  );
  await policy.getByLabel("Most downloads").fill("5");
  await expect(policy.getByText("Must not be more than the most downloads (5).")).toBeVisible();
  await policy.getByRole("button", { name: /^Save changes/ }).click();
  await expect(policy.getByText("Correct the highlighted fields first.")).toBeVisible();
  await shootSizes(page, "settings-conflict-en");
  await chinese(page);
  await expect(policy.getByText("不能大于最长期限（30 天）。")).toBeVisible();
  await expect(policy.getByText("不能小于默认期限（40 天）。")).toBeVisible();
  await shootSizes(page, "settings-conflict-zh");
  expect(puts).toHaveLength(0);
  expect((await admin.json<{ default_days: number }>("GET", "/admin/policy")).default_days).toBe(7);
  await policy.getByRole("button", { name: "撤销修改" }).click();

  // Another administrator raises the default meanwhile: a longest term valid against what
  // this page loaded is refused by the service, said in this page's language.
  await admin.json("PUT", "/admin/policy", { default_days: 20 });
  await policy.getByLabel("最长期限（天）").fill("10");
  await policy.getByRole("button", { name: /^保存修改/ }).click();
  await expect(policy.getByRole("alert")).toHaveText(
    "“默认期限（天）”（20）不能大于“最长期限（天）”（10）。",
  );
  expect(puts).toHaveLength(1);
  expect((await admin.json<{ max_days: number }>("GET", "/admin/policy")).max_days).toBe(30);
  await admin.json("PUT", "/admin/policy", { default_days: 7 });
  await policy.getByRole("button", { name: "重新加载" }).click();
  await english(page);

  // The renewal formula is help text behind a disclosure, not the field's words.
  const mode = policy.getByLabel("Renewal mode");
  await expect(mode).toBeVisible();
  await expect(policy.getByText(/min\(max\(/)).toBeHidden();
  await expect(policy.getByText(/moves the expiry later by the step/)).toBeVisible();
  await policy.getByText("How is it worked out?").click();
  await expect(policy.getByText(/new expiry = min\(max\(expiry, download time\)/)).toBeVisible();
  await shootSizes(page, "settings-renewal-help-en");
});

test("renewal on download: the send form starts from the policy's default", async ({ page }) => {
  const renew = () => page.getByLabel("Extend the time after each complete download");
  // The service's default (renew on) is the form's.
  await page.goto(`${site.url}/#/`);
  await expect(renew()).toBeChecked();

  await signInAdmin(page, site, "settings");
  const policy = page.getByTestId("policy-form");
  const box = policy.getByLabel(/^New parcels renew on each complete download/);
  await expect(box).toBeChecked();
  await box.uncheck();
  await policy.getByRole("button", { name: /^Save changes/ }).click();
  await expect(policy.getByText("Saved (1 changed).")).toBeVisible();
  expect((await admin.json<{ default_renew: boolean }>("GET", "/admin/policy")).default_renew).toBe(
    false,
  );
  await page.goto(`${site.url}/#/`);
  await page.reload();
  await expect(renew()).not.toBeChecked();
  await admin.json("PUT", "/admin/policy", { default_renew: true });
  await page.reload();
  await expect(renew()).toBeChecked();
});

test("parcel rows are named by their files; a locked parcel says why; shares are translated", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  await signInAdmin(page, site, "parcels");
  const big = page.locator(`[data-testid=parcel-row][data-id="${bigId}"]`);
  await expect(big).toContainText("Quarterly report 2026.pdf");
  await expect(big).toContainText("notes.txt");
  await expect(big).toContainText("+2 more");
  // No id (whole or cut) in the row itself.
  expect(await big.innerText()).not.toContain(bigId.slice(0, 8));
  const open = page.getByTestId("parcel-row").filter({ hasText: "still-uploading.bin" });
  await expect(open).toContainText(
    /unfinished upload: discarded in (59 min|1 h).* unless it is sent/,
  );
  const locked = page.locator(`[data-testid=parcel-row][data-id="${lockedId}"]`);
  await expect(locked).toContainText("Locked (too many wrong passwords)");
  // The id is still there for whoever needs it: in the details, with a copy button.
  await big.getByRole("button", { name: /^Files/ }).click();
  const details = page.locator(".adm-detail-row");
  await expect(details).toContainText(bigId);
  await expect(details.getByRole("button", { name: "Copy" })).toBeVisible();
  await shootSizes(page, "parcels-en");

  await chinese(page);
  await expect(big).toContainText("另 2 个文件");
  await expect(locked).toContainText("已锁定（密码错误次数过多）");
  await expect(open).toContainText(/上传未完成：若不发送，将在 .+后丢弃/);
  await shootSizes(page, "parcels-zh");

  // Reissue the locked parcel: the share addresses are named in Chinese.
  await locked.getByRole("button", { name: /^重新签发/ }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("重新签发包裹“contract.pdf”？");
  await dialog.getByRole("button", { name: "重新签发" }).click();
  const share = page.getByTestId("reissue-share");
  await expect(share.getByRole("heading")).toHaveText("“contract.pdf”的新分享");
  const via = share.getByLabel("链接和二维码使用的地址");
  await expect(via).toBeVisible();
  const options = await via.locator("option").allTextContents();
  expect(options).toEqual(["本机", "本机（localhost）", "局域网 192.168.1.20"]);
  // This computer's address is useless on a phone: the LAN one is offered first.
  await expect(via.locator("option:checked")).toHaveText("局域网 192.168.1.20");
  await expect(share.getByRole("link")).toHaveAttribute("href", /^http:\/\/192\.168\.1\.20:/);
  await shootSizes(page, "reissue-zh");
  await english(page);
  await expect(
    share.getByLabel("Address for the link and QR code").locator("option:checked"),
  ).toHaveText("LAN 192.168.1.20");
});

test("audit: filters apply as they change, a quick range is lit only while in force, actions in words", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  // The text fields' settle timer (300 ms) runs on the page's clock, held still while the keys
  // go in: on a starved machine two keystrokes 40 ms apart once came more than 300 ms apart,
  // and "adm" was searched (a test of the machine, not of the page).
  await page.clock.install();
  await signInAdmin(page, site, "audit");
  const count = page.getByTestId("audit-count");
  await expect(count).toHaveText(/records match/);
  const sent: URL[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/v1/admin/audit?")) sent.push(new URL(r.url()));
  });

  // Typing runs the search once it settles, without a button; the keystrokes before do not.
  const source = page.getByLabel("Source");
  await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
  await source.pressSequentially("admin:", { delay: 40 });
  await page.clock.resume();
  const admins = await admin.json<{ total: number }>("GET", "/admin/audit?source=admin%3A");
  await expect(count).toHaveText(`${admins.total} records match`);
  expect(sent.map((u) => u.searchParams.get("source"))).toEqual(["admin:"]);
  await source.fill("");
  await expect(count).toHaveText(/records match/);

  // The action list and the rows name actions in words; the code stays in a title.
  const action = page.getByLabel("Action");
  await expect(action.locator("option", { hasText: "Pickup refused" })).toHaveCount(1);
  await action.selectOption({ label: "Pickup refused" });
  await expect(count).toHaveText("5 records match");
  const row = page.getByTestId("audit-row").first();
  await expect(row.locator("td").nth(1)).toHaveText("Pickup refused");
  await expect(row.locator("[data-action]")).toHaveAttribute("title", "Code pickup.deny");
  await expect(row).toContainText("Reason: wrong password");
  await expect(row).toContainText(/Anonymous · 127\.0\.0\.1/);
  // The parcel is named by its file; its id is only in the cell's tooltip.
  const target = row.locator("td").nth(3);
  await expect(target).toContainText("Parcel: contract.pdf");
  const targetId = (await target.locator("[title]").first().getAttribute("title")) ?? "";
  expect(targetId).toMatch(/^parcel:./);
  await expect(target).not.toContainText(targetId.slice("parcel:".length));

  // Quick ranges: lit while in force, unlit once From or Until is changed by hand.
  const lastHour = page.getByRole("button", { name: "Last hour" });
  const today = page.getByRole("button", { name: "Today" });
  const week = page.getByRole("button", { name: "Last 7 days" });
  for (const b of [lastHour, today, week]) await expect(b).toHaveAttribute("aria-pressed", "false");
  await lastHour.click();
  await expect(lastHour).toHaveAttribute("aria-pressed", "true");
  await expect(today).toHaveAttribute("aria-pressed", "false");
  await expect(count).toHaveText("5 records match");
  await shootSizes(page, "audit-en");

  // A download's size is said once, in words: never the record's own key ("size: 50").
  await action.selectOption({ label: "Download started" });
  const started = page.getByTestId("audit-row").first();
  await expect(started.locator("td").nth(4)).toHaveText("File size: 50 B · Downloads left: 9");
  await action.selectOption({ label: "Download finished" });
  const finished = page.getByTestId("audit-row").first();
  await expect(finished.locator("td").nth(4)).toHaveText(/^Sent: 50 B · Expires: /);
  await expect(finished).not.toContainText(/size:|File size/);
  await shootSizes(page, "audit-download-en");
  await action.selectOption({ label: "Pickup refused" });
  await expect(count).toHaveText("5 records match");
  await week.click();
  await expect(week).toHaveAttribute("aria-pressed", "true");
  await expect(lastHour).toHaveAttribute("aria-pressed", "false");
  const from = await page.getByLabel("From").inputValue();
  const earlier = new Date(Date.parse(from) - 3600_000);
  const pad = (n: number) => String(n).padStart(2, "0");
  await page
    .getByLabel("From")
    .fill(
      `${earlier.getFullYear()}-${pad(earlier.getMonth() + 1)}-${pad(earlier.getDate())}T${pad(earlier.getHours())}:${pad(earlier.getMinutes())}`,
    );
  for (const b of [lastHour, today, week]) await expect(b).toHaveAttribute("aria-pressed", "false");
  await today.click();
  await expect(today).toHaveAttribute("aria-pressed", "true");
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(today).toHaveAttribute("aria-pressed", "false");
  await expect(action).toHaveValue("");

  // In Chinese no action code, reason code or English word is left in the table.
  await chinese(page);
  await page.getByLabel("操作").selectOption({ label: "取件被拒绝" });
  await expect(page.getByTestId("audit-row").first()).toContainText("原因：密码错误");
  await expect(page.getByTestId("audit-row").first()).toContainText("包裹：contract.pdf");
  await page.getByLabel("操作").selectOption({ label: "下载完成" });
  const done = page.getByTestId("audit-row").first().locator("td").nth(4);
  await expect(done).toHaveText(/^已发送：50 B · 过期时间：/);
  await expect(done).not.toContainText(/size|文件大小/);
  await shootSizes(page, "audit-download-zh");
  await page.getByLabel("操作").selectOption("");
  await expect(page.getByTestId("audit-row").first()).toBeVisible();
  const table = page.getByRole("table", { name: "审计日志" });
  await expect(table).toBeVisible();
  expect(await englishWords(page, ".adm-audit-table tbody td:nth-child(2)")).toEqual([]);
  expect(await englishWords(page, ".adm-audit-table tbody td:nth-child(5)")).toEqual([]);
  await shootSizes(page, "audit-zh");
});

test("cleanup counts in words: 1 parcel and 1 file, then nothing", async ({ page }) => {
  await signInAdmin(page, site, "stats");
  const answer = page.waitForResponse((r) => r.url().endsWith("/api/v1/admin/cleanup"));
  await page.getByRole("button", { name: "Run cleanup now" }).click();
  const result = (await (await answer).json()) as { parcels: number; files: number };
  expect(result).toMatchObject({ parcels: 1, files: 1 });
  await expect(page.getByTestId("cleanup-result")).toHaveText(
    /^Cleanup finished: 1 parcel and 1 file removed, .+ freed\.$/,
  );
  await chinese(page);
  await expect(page.getByTestId("cleanup-result")).toHaveText(
    /^清理完成：删除了 1 个包裹和 1 个文件，释放 .+。$/,
  );
  await page.getByRole("button", { name: "立即清理" }).click();
  await expect(page.getByTestId("cleanup-result")).toHaveText(
    "清理完成：没有已结束的包裹，未删除任何内容。",
  );
  await shootSizes(page, "cleanup-zh");
});
