import { expect, test, type Page } from "@playwright/test";
import { ManualClock } from "../../server/clock.js";
import { freePort, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import {
  callInPage as call,
  DESKTOP,
  setLang,
  setUp,
  shootEverywhere,
  signIn,
} from "./support/proxy-page.js";

/**
 * A core that is stopped on purpose (never started yet, or stopped with Stop) is a choice, not
 * a fault: the dashboard says so without red, offers only Start, and a latency test asks for
 * the core first instead of marking every node as failed.
 */

let svc: ProxyConsole;
const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));

test.beforeAll(async () => {
  svc = await startProxyConsole({ clock, probationCheckMs: 0 });
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
});
test.describe.configure({ mode: "serial" });

/** Free ports for the core's listeners, so a start never meets a port in use. */
async function freeListeners(page: Page): Promise<void> {
  const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
  const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
  expect((await call(page, "PUT", "/settings", { ...settings.json, ...ports })).status).toBe(200);
}

function controls(page: Page) {
  const group = page.getByRole("group", { name: /^(Core service|内核服务)$/ });
  return {
    start: group.getByRole("button", { name: /^(Start|启动)$/ }),
    stop: group.getByRole("button", { name: /^(Stop|停止)$/ }),
    restart: group.getByRole("button", { name: /^(Restart|重启)$/ }),
  };
}

/** No red sentence about an unreachable core anywhere on the page. */
async function noUnreachable(page: Page): Promise<void> {
  await expect(
    page.getByRole("alert").filter({ hasText: /cannot be reached|无法连接/ }),
  ).toHaveCount(0);
  await expect(page.locator(".alert-error")).toHaveCount(0);
}

test("the first visit and a deliberate Stop say the core is stopped, neutrally, with only Start offered", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/dashboard");
  const state = page.getByTestId("core-state");
  const { start, stop, restart } = controls(page);

  // First visit: the core was never started.
  await expect(state).toHaveText("Stopped");
  await expect(state).not.toHaveClass(/badge-bad/);
  await expect(page.getByTestId("core-stopped")).toHaveText(
    "The proxy core is stopped. Start it when this gateway should carry traffic through the proxy.",
  );
  await noUnreachable(page);
  await expect(start).toBeEnabled();
  await expect(stop).toBeDisabled();
  await expect(restart).toBeDisabled();
  await shootEverywhere(page, "core-stopped-first-visit");

  await freeListeners(page);
  await start.click();
  await expect(page.getByText("The core was started.")).toBeVisible({ timeout: 20_000 });
  await expect(state).toHaveText("Online", { timeout: 15_000 });
  await expect(stop).toBeEnabled();
  await expect(restart).toBeEnabled();
  await expect(page.getByTestId("core-stopped")).toHaveCount(0);

  // A deliberate Stop: said once in green, then "stopped", never "cannot be reached".
  await stop.click();
  await expect(page.getByText("The core was stopped.")).toBeVisible({ timeout: 20_000 });
  await expect(state).toHaveText("Stopped");
  await expect(page.getByTestId("core-stopped")).toBeVisible();
  await noUnreachable(page);
  await expect(stop).toBeDisabled();
  await expect(restart).toBeDisabled();
  await expect(start).toBeEnabled();
  await setLang(page, "zh-CN");
  await expect(state).toHaveText("已停止");
  await expect(page.getByTestId("core-stopped")).toHaveText(
    "代理内核已停止。需要本网关通过代理转发流量时，请启动它。",
  );
  await setLang(page, "en");

  // The System screen offers the same buttons the same way.
  await page.goto(`${svc.url}/#/system`);
  await expect(controls(page).stop).toBeDisabled();
  await expect(controls(page).restart).toBeDisabled();
  await expect(controls(page).start).toBeEnabled();
});

test("a latency test with the core stopped asks for the core first and blames no node", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/nodes");
  const made = await call<{ id: string }>(page, "POST", "/subscriptions", {
    name: "Provider A",
    url: svc.feedUrl,
  });
  expect((await call(page, "POST", `/subscriptions/${made.json.id}/refresh`)).status).toBe(200);
  await page.reload();
  const testAll = page.getByRole("button", { name: "Test all shown" });
  await expect(page.locator(".nodes .node")).toHaveCount(11);
  // Known before any click: the buttons wait for the core, and say why.
  await expect(testAll).toBeDisabled();
  await expect(page.getByRole("button", { name: "Test the nodes of Provider A" })).toBeDisabled();
  const why = page.getByTestId("test-needs-core");
  await expect(why).toHaveText(
    "Latency tests go through the proxy core, which is stopped. Start it on the Dashboard first.",
  );
  await expect(page.locator('.nodes [data-latency="failed"]')).toHaveCount(0);
  await shootEverywhere(page, "nodes-core-stopped");

  // The core stops after the page looked: the test's answer says so, and no node "failed".
  await freeListeners(page);
  const started = await call(page, "POST", "/system/service", { action: "start" });
  expect(started.status, JSON.stringify(started.json)).toBe(200);
  await page.reload();
  await expect(testAll).toBeEnabled({ timeout: 15_000 });
  await expect(why).toHaveCount(0);
  // The core's own history may mark a node or two; the test must not add to them.
  const failedBefore = await page.locator('.nodes [data-latency="failed"]').count();
  expect((await call(page, "POST", "/system/service", { action: "stop" })).status).toBe(200);
  await testAll.click();
  await expect(
    page.getByText(
      "Start the proxy core first: latency tests go through it, and it is not running.",
    ),
  ).toBeVisible();
  await expect(page.locator('.nodes [data-latency="failed"]')).toHaveCount(failedBefore);
  await expect(page.locator('.nodes [data-latency="testing"]')).toHaveCount(0);
  await expect(testAll).toBeDisabled();
  // Said once: the answer's sentence stands for the hint.
  await expect(why).toHaveCount(0);
  await setLang(page, "zh-CN");
  await expect(
    page.getByText("请先启动代理内核：延迟测试要经过内核，而它现在没有运行。"),
  ).toBeVisible();
});

test("a change undone at its deadline is said once, in the banner, not again on the dashboard", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/dashboard");
  await freeListeners(page);
  expect((await call(page, "POST", "/system/service", { action: "start" })).status).toBe(200);
  const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
  const put = await call(page, "PUT", "/settings", { ...settings.json, proxyEnabled: false });
  expect(put.probation).not.toBeNull();
  await expect(page.getByTestId("probation")).toBeVisible();
  clock.advance(61_000);
  await svc.service.probation.tick();
  const sentence = /The settings change was not confirmed within 60 seconds/;
  await expect(page.getByTestId("probation-notice")).toContainText(sentence);
  // The dashboard asks /status every 5 s: wait for the answer after the rollback.
  await page.reload();
  await expect(page.getByTestId("probation-notice")).toContainText(sentence);
  await expect(page.getByTestId("core-state")).toHaveText("Online", { timeout: 15_000 });
  await expect(page.getByText(sentence)).toHaveCount(1);
  await setLang(page, "zh-CN");
  await expect(page.getByText(/设置更改未在 60 秒内确认/)).toHaveCount(1);
  await shootEverywhere(page, "dashboard-rolled-back");
  expect((await call(page, "POST", "/system/service", { action: "stop" })).status).toBe(200);
});
