import { expect, test, type Browser, type Page } from "@playwright/test";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import {
  adminApi,
  openParcelPage,
  signInAdmin,
  type AdminApi,
  type Lang,
} from "./support/parcel-page.js";
import { DESKTOP, shootThemes, type Size } from "./support/shots.js";

/**
 * The settings forms as a careful administrator fills them in: limits that contradict each
 * other are refused beside both fields and in a sentence naming both, before anything is
 * saved; invalid edits are counted and flagged, never passed off as "no unsaved changes".
 */

const GIB = 1024 ** 3;

let site: ParcelSite;
let admin: AdminApi;

test.beforeAll(async () => {
  site = await startParcelSite();
  admin = await adminApi(site);
});

test.afterAll(async () => {
  await site?.close();
});

async function policy(): Promise<Record<string, unknown>> {
  const r = await admin.call("GET", "/admin/policy");
  expect(r.status).toBe(200);
  return r.json as Record<string, unknown>;
}

/** The settings tab, signed in, in a page of its own at `size` in `lang`. */
async function open(browser: Browser, size: Size, lang: Lang): Promise<Page> {
  const page = await openParcelPage(browser, size, lang);
  await signInAdmin(page, site, "settings", lang);
  await expect(page.getByTestId("policy-form")).toBeVisible();
  return page;
}

const W = {
  en: {
    file: "Largest file",
    parcel: "Largest parcel",
    daily: "Daily upload traffic per client",
    cap: "Renewal cap (days after sending)",
    term: "Longest term (days)",
    save: /^Save changes/,
    fix: "Correct the highlighted fields first.",
    fileErr: "Must not be more than the largest parcel (20.0 GiB).",
    parcelErr: "Must not be less than the largest file (30.0 GiB).",
    fileParcel: "“Largest file” (30.0 GiB) must not be more than “Largest parcel” (20.0 GiB).",
    capErr: "Must be at least the longest term (30 days), or parcels with that term never renew.",
    termErr: "Must not be more than the renewal cap (10 days).",
    capTerm: "“Renewal cap (days after sending)” (10) must be at least “Longest term (days)” (30).",
    dailyErr:
      "Must be at least the largest file (10.0 GiB), or a file that large could never be sent.",
    fileDailyErr: "Must not be more than the daily upload traffic per client (5.00 GiB).",
    fileDaily:
      "“Largest file” (10.0 GiB) must not be more than “Daily upload traffic per client” (5.00 GiB).",
    files: "File budget (files)",
    days: "Keep records (days)",
    noChanges: "No unsaved changes.",
    twoBad: "2 unsaved changes, 2 of them to correct.",
    wholeNumber: "Enter a whole number.",
    atLeast1: "Enter 1 or more.",
  },
  "zh-CN": {
    file: "单个文件上限",
    parcel: "单个包裹上限",
    daily: "每个客户端每日上传流量",
    cap: "续期上限（发送后天数）",
    term: "最长期限（天）",
    save: /^保存修改/,
    fix: "请先更正标出的字段。",
    fileErr: "不能大于单个包裹上限（20.0 GiB）。",
    parcelErr: "不能小于单个文件上限（30.0 GiB）。",
    fileParcel: "“单个文件上限”（30.0 GiB）不能大于“单个包裹上限”（20.0 GiB）。",
    capErr: "不能小于最长期限（30 天），否则该期限的包裹永远不会续期。",
    termErr: "不能大于续期上限（10 天）。",
    capTerm: "“续期上限（发送后天数）”（10）不能小于“最长期限（天）”（30）。",
    dailyErr: "不能小于单个文件上限（10.0 GiB），否则那么大的文件永远无法发送。",
    fileDailyErr: "不能大于每个客户端的每日上传流量（5.00 GiB）。",
    fileDaily: "“单个文件上限”（10.0 GiB）不能大于“每个客户端每日上传流量”（5.00 GiB）。",
    files: "文件数配额（个）",
    days: "保留记录（天）",
    noChanges: "没有未保存的修改。",
    twoBad: "2 项未保存的修改，其中 2 项需要更正。",
    wholeNumber: "请输入整数。",
    atLeast1: "请输入不小于 1 的值。",
  },
} as const;

for (const [size, lang] of [
  ["desktop", "en"],
  ["phone", "zh-CN"],
  ["desktop", "zh-CN"],
  ["phone", "en"],
] as const) {
  test(`limits that contradict each other are refused beside both fields and named together (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = W[lang];
    const page = await open(browser, size, lang);
    const form = page.getByTestId("policy-form");
    const field = (label: string) => form.getByLabel(label, { exact: true });
    const errorOf = async (label: string) =>
      page
        .locator(`#${await field(label).getAttribute("aria-describedby")}`)
        .first()
        .textContent();
    const before = await policy();

    // Largest file 30 GiB over a largest parcel of 20 GiB.
    await field(w.file).fill("30");
    await expect(field(w.file)).toHaveAttribute("aria-invalid", "true");
    await expect(field(w.parcel)).toHaveAttribute("aria-invalid", "true");
    expect(await errorOf(w.file)).toBe(w.fileErr);
    expect(await errorOf(w.parcel)).toBe(w.parcelErr);
    await expect(form.getByTestId("conflicts")).toHaveText(w.fileParcel);
    await shootThemes(page, "parcel-admin-forms", `file-over-parcel-${size}-${lang}`);
    await form.getByRole("button", { name: w.save }).click();
    await expect(form.getByRole("alert")).toHaveText(w.fix);
    expect(await policy()).toEqual(before);
    await field(w.file).fill("10");

    // A renewal cap below the longest term.
    await field(w.cap).fill("10");
    expect(await errorOf(w.cap)).toBe(w.capErr);
    expect(await errorOf(w.term)).toBe(w.termErr);
    await expect(form.getByTestId("conflicts")).toHaveText(w.capTerm);
    await field(w.cap).fill("30");

    // A daily allowance below the largest file.
    await field(w.daily).fill("5");
    expect(await errorOf(w.daily)).toBe(w.dailyErr);
    expect(await errorOf(w.file)).toBe(w.fileDailyErr);
    await expect(form.getByTestId("conflicts")).toHaveText(w.fileDaily);
    await form.getByRole("button", { name: w.save }).click();
    await expect(form.getByRole("alert")).toHaveText(w.fix);
    expect(await policy()).toEqual(before);
    await page.context().close();
  });
}

for (const [size, lang] of [
  ["desktop", "en"],
  ["phone", "zh-CN"],
  ["phone", "en"],
  ["desktop", "zh-CN"],
] as const) {
  test(`invalid budget edits are counted and flagged, never "no unsaved changes" (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = W[lang];
    const page = await open(browser, size, lang);
    const form = page.getByTestId("runtime-form");
    const status = form.locator(".adm-form-actions [role=status]");
    await expect(status).toHaveText(w.noChanges);
    await form.getByLabel(w.files, { exact: true }).fill("-5");
    await form.getByLabel(w.days, { exact: true }).fill("0");
    await expect(status).toHaveText(w.twoBad);
    await expect(form.getByLabel(w.files, { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByLabel(w.days, { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByText(w.wholeNumber)).toBeVisible();
    await expect(form.getByText(w.atLeast1)).toBeVisible();
    const save = form.getByRole("button", { name: w.save });
    await expect(save).toBeEnabled();
    await save.click();
    await expect(form.getByRole("alert")).toHaveText(w.fix);
    await shootThemes(page, "parcel-admin-forms", `budgets-invalid-${size}-${lang}`);
    // They can be undone like any unsaved change.
    await form.getByRole("button", { name: lang === "en" ? "Undo changes" : "撤销修改" }).click();
    await expect(status).toHaveText(w.noChanges);
    await page.context().close();
  });
}

test("the service accepts one tight limit from a script, and the send page promises only what it can send", async ({
  browser,
}) => {
  const put = await admin.call("PUT", "/admin/policy", {
    max_file_bytes: 30 * GIB,
    max_parcel_bytes: 20 * GIB,
    daily_upload_bytes: 2 * GIB,
  });
  expect(put.status).toBe(200);
  try {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await page.goto(`${site.url}/#/`);
    await expect(
      page.getByText(/^Up to 100 files, 2\.00 GiB each, 2\.00 GiB in all\./),
    ).toBeVisible();
    await context.close();
  } finally {
    const back = await admin.call("PUT", "/admin/policy", {
      max_file_bytes: 10 * GIB,
      max_parcel_bytes: 20 * GIB,
      daily_upload_bytes: 50 * GIB,
    });
    expect(back.status).toBe(200);
  }
});
