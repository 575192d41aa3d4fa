import { rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { startParcelSite } from "./support/parcel-harness.js";
import { PASSWORD, startProxyConsole } from "./support/proxy-harness.js";
import { shootBothThemes } from "./support/proxy-shots.js";
import { shootThemes } from "./support/shots.js";

/** Times are shown in the reader's zone: a fixed one, so the expected text is known. */
test.use({ timezoneId: "Asia/Shanghai", locale: "en-GB" });

/** The date and time the page shows for an instant, formatted in the browser itself. */
function shownTime(page: Page, iso: string, lang: string): Promise<string> {
  return page.evaluate(
    ([at, l]) => new Date(at).toLocaleString(l, { dateStyle: "medium", timeStyle: "medium" }),
    [iso, lang],
  );
}

test("the parcel admin lists a failed download among the recent problems, in both languages", async ({
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

    // A download whose stored bytes have gone from the disk fails on the service's side.
    const up = await createUpload(h, { "report.pdf": 2048 });
    const code = (await uploadAndPublish(h, up)).json.code as string;
    expect(
      (await h.request("POST", "/pickup/resolve", { body: { code, password: "" } })).status,
    ).toBe(200);
    const fileId = (await h.request("GET", "/pickup")).json.files[0].id as string;
    rmSync(join(h.dataDir, "parcel", "blobs"), { recursive: true, force: true });
    const failed = await h.request("GET", `/pickup/files/${fileId}/download`);
    expect(failed.status).toBe(500);
    const requestId = String(failed.headers["x-request-id"]);

    await page.getByRole("button", { name: "Refresh" }).click();
    const problem = card.getByTestId("problem");
    await expect(problem).toHaveCount(1);
    await expect(problem).toContainText(
      `GET /api/v1/pickup/files/${fileId}/download failed: The file could not be read`,
    );
    await expect(problem).toContainText("Error");
    await expect(problem).toContainText(`Request ${requestId}`);
    const iso = (await problem.locator("time").getAttribute("datetime")) ?? "";
    expect(Math.abs(Date.parse(iso) - Date.now())).toBeLessThan(60_000);
    await expect(problem.locator("time")).toHaveText(await shownTime(page, iso, "en"));
    await problem.scrollIntoViewIfNeeded();
    await shootThemes(page, "parcel-admin", "problems");

    await page.getByLabel("Language").selectOption("zh-CN");
    const zhCard = page.getByRole("region", { name: "最近的问题" });
    await expect(zhCard.getByTestId("problem")).toContainText("错误");
    await expect(zhCard.getByTestId("problem")).toContainText(`请求 ${requestId}`);
    await expect(zhCard.locator("time")).toHaveText(await shownTime(page, iso, "zh-CN"));
    await shootThemes(page, "parcel-admin", "problems-zh");
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
    const api = (path: string) => `${svc.url}/api/v1${path}`;
    const csrf = ((await (await page.request.get(api("/auth/status"))).json()) as { csrf: string })
      .csrf;
    const created = await page.request.post(api("/subscriptions"), {
      data: {
        name: "Broken provider",
        url: `${svc.feeds.url}/sub/broken?token=abc`,
        intervalHours: 6,
      },
      headers: { "X-CSRF-Token": csrf },
    });
    expect(created.status()).toBe(200);
    await svc.service.scheduler.tick();

    const problem = card.getByTestId("problem");
    await expect(problem).toHaveCount(1, { timeout: 15_000 });
    await expect(problem).toContainText(
      'Scheduled refresh of subscription "Broken provider" failed: The subscription server answered 503',
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
    await expect(zhCard.locator("time")).toHaveText(await shownTime(page, iso, "zh-CN"));
    await shootBothThemes(page, "dashboard-problems-zh");
  } finally {
    await svc.close();
  }
});
