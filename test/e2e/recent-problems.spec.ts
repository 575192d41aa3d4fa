import { rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { FATAL_LINE, failingCore } from "../helpers/failing-core.js";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { startParcelSite } from "./support/parcel-harness.js";
import { PASSWORD, startProxyConsole } from "./support/proxy-harness.js";
import { callOk } from "./support/proxy-page.js";
import { shootBothThemes } from "./support/proxy-shots.js";
import { atBothSizesForShots, shootThemes } from "./support/shots.js";

/** Times are shown in the reader's zone: a fixed one, so the expected text is known. */
test.use({ timezoneId: "Asia/Shanghai", locale: "en-GB" });

/**
 * Latin words a Chinese text still holds once the values a person gave (a file's or a
 * subscription's name) and the request id are taken out: none may be left.
 */
async function englishIn(where: Locator, own: string[] = []): Promise<string[]> {
  let text = await where.innerText();
  for (const value of own) text = text.replaceAll(value, "");
  return text.match(/[A-Za-z]{2,}/g) ?? [];
}

/** The date and time the page shows for an instant, formatted in the browser itself. */
function shownTime(page: Page, iso: string, lang: string): Promise<string> {
  return page.evaluate(
    ([at, l]) => new Date(at).toLocaleString(l, { dateStyle: "medium", timeStyle: "medium" }),
    [iso, lang],
  );
}

test("the parcel admin lists a download refused for a missing stored copy among the recent problems, in both languages", async ({
  page,
}) => {
  const site = await startParcelSite();
  try {
    const h = site.harness;
    await page.goto(`${site.url}/#/admin/stats`);
    await page.getByLabel("Username").fill(site.adminUser);
    await page.getByLabel("Password").fill(site.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    const card = page.getByRole("region", { name: "Recent problems" });
    await expect(card.getByTestId("problems-empty")).toHaveText(
      "No problems since the service started.",
    );

    // A download whose stored bytes have gone from the disk is refused, and the operator told.
    const up = await createUpload(h, { "report.pdf": 2048 });
    const code = (await uploadAndPublish(h, up)).json.code as string;
    expect(
      (await h.request("POST", "/pickup/resolve", { body: { code, password: "" } })).status,
    ).toBe(200);
    const fileId = (await h.request("GET", "/pickup")).json.files[0].id as string;
    rmSync(join(h.dataDir, "parcel", "blobs"), { recursive: true, force: true });
    const failed = await h.request("GET", `/pickup/files/${fileId}/download`);
    expect(failed.status).toBe(410);

    await page.getByRole("button", { name: "Refresh" }).click();
    const problem = card.getByTestId("problem");
    await expect(problem).toHaveCount(1);
    // Said by its code, naming the file; no path, no file id, no blob name.
    await expect(problem.locator("p").first()).toHaveText(
      "The stored copy of report.pdf is missing. Its downloads are refused; a new upload of the same file stores it again.",
    );
    await expect(problem).not.toContainText(fileId);
    await expect(problem).toContainText("Warning");
    const iso = (await problem.locator("time").getAttribute("datetime")) ?? "";
    expect(Math.abs(Date.parse(iso) - Date.now())).toBeLessThan(60_000);
    await expect(problem.locator("time")).toHaveText(await shownTime(page, iso, "en"));
    await problem.scrollIntoViewIfNeeded();
    await shootThemes(page, "parcel-admin", "problems");

    await page.getByLabel("Language").selectOption("zh-CN");
    const zhCard = page.getByRole("region", { name: "最近的问题" });
    const zhProblem = zhCard.getByTestId("problem");
    await expect(zhProblem).toContainText("警告");
    await expect(zhProblem.locator("p").first()).toHaveText(
      "report.pdf 的存储副本已丢失。它的下载会被拒绝；再次上传同一文件即可重新保存。",
    );
    await expect(zhCard.locator("time")).toHaveText(await shownTime(page, iso, "zh-CN"));
    // Every sentence of the card is Chinese: nothing in English, nothing marked as English.
    expect(await englishIn(zhCard, ["report.pdf"])).toEqual([]);
    await expect(zhCard.locator('[lang="en"]')).toHaveCount(0);
    await atBothSizesForShots(page, async (size) => {
      await zhCard.scrollIntoViewIfNeeded();
      await shootThemes(page, "parcel-admin", `problems-zh-${size}`);
    });
  } finally {
    await site.close();
  }
});

test("the proxy dashboard lists a failed scheduled refresh among the recent problems, in both languages", async ({
  page,
}) => {
  const svc = await startProxyConsole();
  try {
    svc.feeds.setRoute("/sub/broken", { status: 503, body: "maintenance" });
    await page.goto(svc.url);
    await page.getByLabel("Setup token").fill(svc.token);
    await page.getByLabel("New password").fill(PASSWORD);
    await page.getByLabel("Repeat the password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await expect(page.getByRole("heading", { name: "Dashboard", level: 1 })).toBeVisible();
    const card = page.getByRole("region", { name: "Recent problems" });
    await expect(card.getByTestId("problems-empty")).toHaveText(
      "No problems since the service started.",
    );

    // A subscription added without a refresh is due at the scheduler's next check, which fails.
    await callOk(page, "POST", "/subscriptions", {
      name: "Broken provider",
      url: `${svc.feeds.url}/sub/broken?token=abc`,
      intervalHours: 6,
    });
    await svc.service.scheduler.tick();

    const problem = card.getByTestId("problem");
    await expect(problem).toHaveCount(1, { timeout: 15_000 });
    await expect(problem.locator("p").first()).toHaveText(
      "The scheduled refresh of subscription “Broken provider” failed: The subscription server answered HTTP 503.",
    );
    await expect(problem).toContainText("Warning");
    // The address (here with a token in its query) is never shown or logged.
    await expect(problem).not.toContainText("token=abc");
    await expect(problem.locator("code")).toHaveCount(0);
    const iso = (await problem.locator("time").getAttribute("datetime")) ?? "";
    await expect(problem.locator("time")).toHaveText(await shownTime(page, iso, "en"));
    await shootBothThemes(page, "dashboard-problems");

    await page.getByLabel("Language").selectOption("zh-CN");
    const zhCard = page.getByRole("region", { name: "最近的问题" });
    await expect(zhCard.getByTestId("problem")).toContainText("警告");
    await expect(zhCard.getByTestId("problem").locator("p").first()).toHaveText(
      "订阅“Broken provider”的定时刷新失败：订阅服务器返回了 HTTP 503。",
    );
    await expect(zhCard.locator("time")).toHaveText(await shownTime(page, iso, "zh-CN"));
    // Only the subscription's own name (and HTTP) is in Latin letters; none marked English.
    expect(await englishIn(zhCard, ["Broken provider", "HTTP"])).toEqual([]);
    await expect(zhCard.locator('[lang="en"]')).toHaveCount(0);
    await atBothSizesForShots(page, (size) =>
      shootBothThemes(page, `dashboard-problems-zh-${size}`),
    );
  } finally {
    await svc.close();
  }
});

test("a core that stops right after starting is said in Chinese, its own words folded apart", async ({
  page,
}) => {
  const core = failingCore();
  // The core was running at the last shutdown, so the service starts it, and it fails.
  const svc = await startProxyConsole({ coreBin: core.bin, autoStartCore: true });
  try {
    await page.goto(`${svc.url}/?lang=zh-CN`);
    await page.getByLabel("初始化令牌").fill(svc.token);
    await page.getByLabel("新密码").fill(PASSWORD);
    await page.getByLabel("再次输入密码").fill(PASSWORD);
    await page.getByRole("button", { name: "设置密码并登录" }).click();
    const coreCard = page.getByRole("region", { name: "代理内核" });
    await expect(coreCard.getByText("代理内核刚启动就停止了。")).toBeVisible();
    // The core's own lines: folded, labelled, and marked as English.
    const output = coreCard.getByTestId("core-output");
    await expect(output.locator("summary")).toHaveText("内核输出");
    await expect(output).not.toHaveAttribute("open");
    await expect(output.locator('pre[lang="en"]')).toContainText(FATAL_LINE);
    await expect(output.locator("pre")).toBeHidden();
    // Outside the fold, every sentence of the card and of the problem list is Chinese.
    const outside = async (where: Locator) => {
      const all = await englishIn(where, [
        svc.service.ctx.options.controllerPort?.toString() ?? "",
      ]);
      const folded = (await output.count()) > 0 ? await englishIn(output) : [];
      return all.filter((w) => !folded.includes(w));
    };
    expect(await outside(coreCard)).toEqual([]);
    const problems = page.getByRole("region", { name: "最近的问题" });
    await expect(problems.getByTestId("problem").first()).toBeVisible();
    await expect(
      problems.getByText("代理内核未能随服务启动：代理内核刚启动就停止了。"),
    ).toBeVisible();
    expect(await englishIn(problems)).toEqual([]);
    await atBothSizesForShots(page, (size) =>
      shootBothThemes(page, `core-failed-start-zh-${size}`),
    );

    // Starting it again from System says the same in Chinese, with the core's lines folded.
    await page.goto(`${svc.url}/?lang=zh-CN#/system`);
    await page.getByRole("button", { name: "启动", exact: true }).click();
    const alert = page.getByRole("alert").filter({ hasText: "代理内核刚启动就停止了。" });
    await expect(alert).toBeVisible({ timeout: 15_000 });
    const again = page.getByTestId("core-output");
    await expect(again.locator("summary")).toHaveText("内核输出");
    await again.locator("summary").click();
    await expect(again.locator('pre[lang="en"]')).toBeVisible();
    await expect(again.locator("pre")).toContainText(FATAL_LINE);
    await atBothSizesForShots(page, async (size) => {
      await again.scrollIntoViewIfNeeded();
      await shootBothThemes(page, `core-failed-start-system-zh-${size}`);
    });
  } finally {
    await svc.close();
    rmSync(core.dir, { recursive: true, force: true });
  }
});
