import http from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { startCoreReleaseServer } from "../fixtures/core-release-server.js";
import { CookieJar } from "../helpers/parcel-harness.js";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { clearPickupFailures } from "../helpers/raw-db.js";
import { startParcelSite } from "./support/parcel-harness.js";
import { adminApi } from "./support/parcel-page.js";
import { freePort, startProxyConsole } from "./support/proxy-harness.js";
import {
  callInPage as call,
  DESKTOP,
  setLang,
  setUp,
  shootEverywhere,
  signIn,
} from "./support/proxy-page.js";
import { atBothSizesForShots, shootThemes } from "./support/shots.js";

/**
 * What a person tried and what failed them belongs among the "Recent problems" of both
 * dashboards, in their language: a subscription whose server answers 404, an install that
 * cannot download, a start the core does not survive, a geodata update and an update check
 * that find nothing, a console sign-in blocked after wrong passwords; on the parcel side a
 * parcel locked after wrong passwords, a device and the whole service blocked from pickups, a
 * used-up upload allowance and a blocked administrator sign-in.
 */

test.use({ timezoneId: "Asia/Shanghai", locale: "en-GB" });

/** The sentences of a recent-problems card, newest first. */
async function problemTexts(card: Locator): Promise<string[]> {
  const items = card.getByTestId("problem");
  const out: string[] = [];
  for (let i = 0; i < (await items.count()); i++)
    out.push(await items.nth(i).locator("p").first().innerText());
  return out;
}

/** Latin words a Chinese text holds once the values a person gave are taken out. */
async function englishIn(where: Locator, own: string[] = []): Promise<string[]> {
  let text = await where.innerText();
  for (const value of own) text = text.replaceAll(value, "");
  return text.match(/[A-Za-z]{2,}/g) ?? [];
}

async function wrongSignIns(url: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ password: `not the password ${i}` }),
    });
    statuses.push(res.status);
  }
  return statuses;
}

test("the proxy dashboard lists each failed action a person tried, in both languages", async ({
  page,
}) => {
  test.setTimeout(150_000);
  const rel = await startCoreReleaseServer({
    tag: "v1.19.30",
    variant: "exits",
    mode: "release-404",
  });
  // Where the rules' data is published: nothing there.
  const geo = http.createServer((_req, res) => res.writeHead(404).end("gone"));
  await new Promise<void>((ok) => geo.listen(0, "127.0.0.1", ok));
  const svc = await startProxyConsole({
    coreBin: undefined,
    coreReleaseURL: rel.url,
    geodataURL: `http://127.0.0.1:${(geo.address() as AddressInfo).port}/geo`,
    geodataDirs: [resolve("test/fixtures")],
  });
  try {
    svc.feeds.setRoute("/sub/gone", { status: 404, body: "no such subscription" });
    await setUp(svc);
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/dashboard");
    const card = page.getByRole("region", { name: "Recent problems" });
    await expect(card.getByTestId("problems-empty")).toBeVisible();
    const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
    const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
    expect((await call(page, "PUT", "/settings", { ...settings.json, ...ports })).status).toBe(200);

    // Install, while the release server answers 404.
    const install = page.getByRole("button", { name: "Install the proxy core" });
    await install.click();
    await expect(page.getByRole("alert").filter({ hasText: /404/ })).toBeVisible();

    // A subscription whose server answers 404, added and refreshed from its screen.
    await page.goto(`${svc.url}/#/subscriptions`);
    await page.getByRole("button", { name: "Add subscription" }).click();
    await page.getByLabel("Name").fill("Gone provider");
    await page.getByLabel("Subscription URL").fill(`${svc.feeds.url}/sub/gone?token=abc`);
    await page.getByRole("button", { name: "Add and refresh" }).click();
    await expect(page.getByText(/answered HTTP 404/).first()).toBeVisible();

    // The update check, while the release server answers 404.
    await page.goto(`${svc.url}/#/system`);
    await page.getByRole("button", { name: "Check for updates" }).click();
    await expect(page.getByText(/404/).first()).toBeVisible();

    // The release is back: the core installs, but stops right after it starts.
    rel.set({ mode: "ok" });
    expect((await call(page, "POST", "/system/core/install", {})).status).toBe(200);
    await page.goto(`${svc.url}/#/dashboard`);
    const start = page
      .getByRole("group", { name: "Core service" })
      .getByRole("button", { name: "Start", exact: true });
    await start.click();
    await expect(
      page.getByText("The proxy core stopped right after starting.").first(),
    ).toBeVisible({
      timeout: 20_000,
    });

    // The rules' data, while its server answers 404.
    await page.goto(`${svc.url}/#/system`);
    await page.getByRole("button", { name: "Update geodata" }).click();
    await expect(page.getByText(/404/).first()).toBeVisible();

    // Someone guesses the console password from another device.
    expect(await wrongSignIns(svc.url, 7)).toEqual([401, 401, 401, 401, 401, 429, 429]);

    await page.goto(`${svc.url}/#/dashboard`);
    const en = [
      "Sign-in to this console was blocked on one device for 15 min after 5 wrong passwords.",
      "The geodata update failed: the download server answered HTTP 404 for geoip.metadb.sha256sum. Nothing was changed.",
      "Starting the proxy core failed: The proxy core stopped right after starting.",
      "The update check failed: the release server answered HTTP 404.",
      "Refreshing subscription “Gone provider” failed: The subscription server answered HTTP 404.",
      "The core could not be installed: the release server answered HTTP 404. Nothing was changed.",
    ];
    // Newest first; the core's own exit and its log line sit between the start and the check.
    await expect.poll(() => problemTexts(card)).toEqual(expect.arrayContaining(en));
    const texts = await problemTexts(card);
    expect(en.map((x) => texts.indexOf(x))).toEqual(
      [...en.map((x) => texts.indexOf(x))].sort((a, b) => a - b),
    );
    // Levels: a failed start is an error, the rest warnings; the address's token is never shown.
    const item = (text: string) => card.getByTestId("problem").filter({ hasText: text });
    await expect(item(en[2])).toContainText("Error");
    for (const text of [en[0], en[1], en[3], en[4], en[5]])
      await expect(item(text)).toContainText("Warning");
    await expect(card).not.toContainText("token=abc");
    await expect(item(en[4]).locator("code")).toHaveText(/^[0-9a-f]{16}$/);
    await shootEverywhere(page, "dashboard-problems-actions", {
      before: () => page.locator(".problems-wide").scrollIntoViewIfNeeded(),
    });

    await setLang(page, "zh-CN");
    const zhCard = page.getByRole("region", { name: "最近的问题" });
    const zh = [
      "一台设备连续输错 5 次密码，该设备登录控制台已被暂停 15 分钟。",
      "更新地理数据失败：下载服务器对 geoip.metadb.sha256sum 返回了 HTTP 404。没有做任何更改。",
      "启动代理内核失败：代理内核刚启动就停止了。",
      "检查更新失败：发布服务器返回了 HTTP 404。",
      "刷新订阅“Gone provider”失败：订阅服务器返回了 HTTP 404。",
      "内核安装失败：发布服务器返回了 HTTP 404。没有做任何更改。",
    ];
    await expect.poll(() => problemTexts(zhCard)).toEqual(expect.arrayContaining(zh));
    const ids = await zhCard.locator("code").allInnerTexts();
    expect(
      await englishIn(zhCard, ["Gone provider", "geoip.metadb.sha256sum", "HTTP", ...ids]),
    ).toEqual([]);
  } finally {
    await svc.close();
    await rel.close();
    await new Promise<void>((ok) => geo.close(() => ok()));
  }
});

test("the parcel overview lists locks, blocks and a used-up allowance people met, in both languages", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const site = await startParcelSite();
  try {
    const h = site.harness;
    await page.setViewportSize(DESKTOP);
    await page.goto(`${site.url}/#/admin/stats`);
    await page.getByLabel("Username").fill(site.adminUser);
    await page.getByLabel("Password").fill(site.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    const card = page.getByRole("region", { name: "Recent problems" });
    await expect(card.getByTestId("problems-empty")).toBeVisible();

    // A small daily allowance, set by the administrator.
    const admin = await adminApi(site);
    const policy = await admin.call("PUT", "/admin/policy", { daily_upload_bytes: 64 * 1024 });
    expect(policy.status, policy.text).toBe(200);

    // A parcel guessed at until it locks; then unknown codes until the device is blocked.
    const up = await createUpload(
      h,
      { "report.pdf": 2048, "notes.txt": 100 },
      { password: "right one" },
    );
    const code = (await uploadAndPublish(h, up)).json.code as string;
    const resolve = (body: Record<string, unknown>) =>
      h.request("POST", "/pickup/resolve", { body, jar: new CookieJar() });
    for (let i = 0; i < 5; i++)
      expect((await resolve({ code, password: `wrong ${i}` })).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await resolve({ code: `WRONG${i}CODE` })).status).toBe(404);
    expect((await resolve({ code: "WRONGCODE" })).status).toBe(429);
    expect((await resolve({ code: "WRONGCODE" })).status).toBe(429);

    // Later, wrong codes from many devices use up the service's budget.
    clearPickupFailures(h.db);
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 200; i++) h.repos.pickup.addFailure(`10.0.${i >> 8}.${i & 255}`, now);
    expect((await resolve({ code: "WRONGCODE" })).status).toBe(429);
    clearPickupFailures(h.db);

    // A sender past today's allowance.
    const big = await h.request("POST", "/uploads", {
      body: { files: [{ name: "video.mp4", size: 100 * 1024 }] },
    });
    expect(big.status).toBe(429);

    // Someone guesses the administrator's password from this device (its session stays).
    for (let i = 0; i < 6; i++) {
      const r = await h.request("POST", "/admin/login", {
        body: { username: site.adminUser, password: `guess ${i}` },
        jar: new CookieJar(),
      });
      expect(r.status).toBe(i < 5 ? 401 : 429);
    }

    await page.getByRole("button", { name: "Refresh" }).click();
    const en = [
      /^Administrator sign-in was blocked on one device for 15 min after 5 wrong passwords\.$/,
      /^A sender used up today's upload allowance; that device's uploads are refused until midnight \(UTC\)\.$/,
      /^Too many wrong codes were tried across the service; for 10 min only pickups already under way go on\.$/,
      /^One device tried too many wrong codes or passwords; its pickups are refused for 10 min\.$/,
      /^The parcel with report\.pdf and 1 more file was locked after 5 wrong passwords; reissue it to share it again\.$/,
    ];
    await expect(card.getByTestId("problem").locator("p:first-of-type")).toHaveText(en);
    for (const item of await card.getByTestId("problem").all())
      await expect(item).toContainText("Warning");
    await shootEverywhereParcel(page, "parcel-admin", "problems-actions");

    await page.getByLabel("Language").selectOption("zh-CN");
    const zhCard = page.getByRole("region", { name: "最近的问题" });
    await expect(zhCard.getByTestId("problem").locator("p:first-of-type")).toHaveText([
      "一台设备连续输错 5 次管理员密码，该设备的登录已被暂停 15 分钟。",
      "有发送者用完了今天的上传额度；今天（协调世界时）结束之前，该设备的上传都会被拒绝。",
      "整个服务上输错的取件码过多；10 分钟内只有正在进行的取件可以继续。",
      "一台设备输错取件码或密码的次数过多，10 分钟内无法取件。",
      "包含 report.pdf 等 2 个文件的包裹因输错 5 次密码已被锁定；重新发放后才能再次分享。",
    ]);
    const ids = await zhCard.locator("code").allInnerTexts();
    expect(await englishIn(zhCard, ["report.pdf", ...ids])).toEqual([]);
    await page.getByLabel("语言").selectOption("en");
  } finally {
    await site.close();
  }
});

/** The parcel overview's card at both sizes, in both themes (shots.ts names them). */
async function shootEverywhereParcel(page: Page, prefix: string, name: string): Promise<void> {
  await atBothSizesForShots(page, async (width) => {
    await page.locator(".adm-problems").scrollIntoViewIfNeeded();
    await shootThemes(page, prefix, `${name}-${width}`);
  });
}
