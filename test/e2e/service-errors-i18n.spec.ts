import { expect, test, type Browser, type Page } from "@playwright/test";
import { bearer, createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { setParcelExpiry } from "../helpers/raw-db.js";
import { startParcelSite } from "./support/parcel-harness.js";
import { startProxyConsole, PASSWORD } from "./support/proxy-harness.js";
import { shootBothThemes } from "./support/proxy-shots.js";
import { PHONE, shootThemes } from "./support/shots.js";

/**
 * A sentence a service sends reaches a Chinese reader in Chinese: the pages say it by its
 * code (with its values), not in the service's English words.
 */

/** Three or more English words in a row: a sentence nobody translated. */
const ENGLISH = /[A-Za-z]+ [A-Za-z]+ [A-Za-z]+/;

async function phone(browser: Browser, storageKey: string): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  await context.addInitScript((key) => localStorage.setItem(key, "zh-CN"), storageKey);
  return context.newPage();
}

test("the pickup page says in Chinese why a code opens nothing: unknown, expired, withdrawn", async ({
  browser,
}) => {
  const site = await startParcelSite();
  try {
    const h = site.harness;
    const expired = await createUpload(h, { "report.pdf": 2048 });
    const expiredCode = (await uploadAndPublish(h, expired)).json.code as string;
    const withdrawn = await createUpload(h, { "photo.jpg": 4096 });
    const withdrawnCode = (await uploadAndPublish(h, withdrawn)).json.code as string;
    // The term ends (the service's own sweep marks it expired on the next request) ...
    setParcelExpiry(h.db, expired.id, h.service.ctx.now() - 1);
    // ... and the other sender takes theirs back.
    const revoke = await h.request("POST", `/parcels/${withdrawn.id}/revoke`, {
      headers: bearer(withdrawn.manage_token),
    });
    expect(revoke.status).toBe(200);

    const page = await phone(browser, "gatehouse.parcel.lang");
    const cases = [
      { code: "ZZZ-ZZZ", say: "没有与此取件码对应的包裹。请检查后重试。", shot: "unknown" },
      { code: expiredCode, say: "此包裹已过期。", shot: "expired" },
      { code: withdrawnCode, say: "发件人已撤回此包裹。", shot: "withdrawn" },
    ];
    for (const c of cases) {
      const answer = page.waitForResponse((r) => r.url().endsWith("/api/v1/pickup/resolve"));
      await page.goto("about:blank"); // a fresh load, as when a link is opened
      await page.goto(`${site.url}/#/pickup/${c.code.replace("-", "")}`);
      const body = (await (await answer).json()) as { error: string; code: string };
      const notice = page.locator(".notice").filter({ hasText: c.say });
      await expect(notice).toBeVisible();
      // The service's English sentence is not what the reader sees.
      await expect(page.getByText(body.error)).toHaveCount(0);
      expect(await notice.textContent()).not.toMatch(ENGLISH);
      await shootThemes(page, "errors-i18n-pickup", `${c.shot}-390-zh-CN`);
    }
    await page.context().close();
  } finally {
    await site.close();
  }
});

test("the console says a subscription server's 404 in Chinese, in the list and after a refresh", async ({
  browser,
}) => {
  const svc = await startProxyConsole();
  try {
    svc.feeds.setRoute("/sub/gone", { status: 404, body: "no such feed" });
    const page = await phone(browser, "gatehouse.proxy.lang");
    await page.goto(`${svc.url}/#/subscriptions`);
    // A fresh console asks for the setup token first; the API sets the password instead.
    const setup = await page.request.post(`${svc.url}/api/v1/auth/setup`, {
      data: { token: svc.token, password: PASSWORD },
    });
    expect(setup.status()).toBe(200);
    const csrf = ((await setup.json()) as { csrf: string }).csrf;
    const created = await page.request.post(`${svc.url}/api/v1/subscriptions`, {
      data: { name: "Gone feed", url: `${svc.feeds.url}/sub/gone`, intervalHours: 0 },
      headers: { "X-CSRF-Token": csrf },
    });
    expect(created.status()).toBe(200);
    await page.goto(`${svc.url}/#/subscriptions`);
    await page.reload();

    const item = page.getByRole("listitem", { name: "Gone feed" });
    const refreshed = page.waitForResponse((r) => r.url().endsWith("/refresh"));
    await item.getByRole("button", { name: "更新", exact: true }).click();
    const answer = await refreshed;
    expect(answer.status()).toBe(400);
    expect(await answer.json()).toMatchObject({
      error: "The subscription server answered 404",
      code: "subscription.fetch_status",
      params: { status: 404 },
    });
    // The refresh's own notice, and the failure the list keeps (as after a reload).
    await expect(
      item.getByText("更新失败，已保留原有节点：订阅服务器返回了 HTTP 404。"),
    ).toBeVisible();
    await expect(item.getByText(/^上次更新失败（.+）：订阅服务器返回了 HTTP 404。$/)).toBeVisible();
    await expect(item.getByText(/answered 404/)).toHaveCount(0);
    await shootBothThemes(page, "errors-i18n-subscription-404-390-zh-CN");

    await page.reload();
    await expect(
      page
        .getByRole("listitem", { name: "Gone feed" })
        .getByText(/^上次更新失败（.+）：订阅服务器返回了 HTTP 404。$/),
    ).toBeVisible();
    await page.context().close();
  } finally {
    await svc.close();
  }
});
