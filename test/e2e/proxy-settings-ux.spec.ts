import { expect, test, type Page } from "@playwright/test";
import { ManualClock } from "../../server/clock.js";
import { freePort, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import {
  callInPage as call,
  DESKTOP,
  PHONE,
  setLang,
  setUp,
  shootEverywhere,
  signIn,
} from "./support/proxy-page.js";

/**
 * Settings as a person meets them: the HTTP/SOCKS port checked against the ports this
 * Gatehouse really uses (named in the hint), no "Settings saved." beside "Keep these
 * settings?", a form button that cannot be taken for the banner's "Undo now", and on a phone a
 * banner that stays under the bar and its menu.
 */

let svc: ProxyConsole;
let consolePort: number;
let controllerPort: number;
const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));

test.beforeAll(async () => {
  controllerPort = await freePort();
  svc = await startProxyConsole({ clock, probationCheckMs: 0, controllerPort });
  consolePort = Number(new URL(svc.url).port);
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
});
test.describe.configure({ mode: "serial" });

/** Free listener ports, and the core running (a change that can cut one off waits for Keep). */
async function runCore(page: Page): Promise<void> {
  const status = await call<{ coreOnline: boolean }>(page, "GET", "/status");
  if (status.json.coreOnline) return;
  const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
  const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
  expect((await call(page, "PUT", "/settings", { ...settings.json, ...ports })).status).toBe(200);
  expect((await call(page, "POST", "/system/service", { action: "start" })).status).toBe(200);
}

async function saveMixedPort(page: Page, port: number): Promise<void> {
  await page.getByLabel("HTTP/SOCKS port").fill(String(port));
  await page.getByRole("button", { name: "Save settings" }).click();
}

test("the proxy port is checked against the ports this Gatehouse uses, which the hint names", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/settings");
  const field = page.getByLabel("HTTP/SOCKS port");
  await expect(field).toHaveAccessibleDescription(
    `1024–65535, not a port Gatehouse already uses: ${consolePort} (this console), ${controllerPort} (the core's controller).`,
  );
  await expect(page.getByText(/8080|9090/)).toHaveCount(0);
  await setLang(page, "zh-CN");
  // Chinese punctuation after Chinese words: "IPv4 转发：否", never "IPv4 转发: 否".
  await expect(page.locator(".checks li").first()).toHaveText(/^[✓✗] IPv4 转发：(是|否)$/);
  expect(await page.locator("main").innerText()).not.toMatch(/[\u4e00-\u9fff）] ?:/);
  await expect(page.getByLabel("HTTP/SOCKS 端口")).toHaveAccessibleDescription(
    `1024–65535，不能是 Gatehouse 已在使用的端口：${consolePort}（本控制台）、${controllerPort}（内核控制端口）。`,
  );
  await setLang(page, "en");

  // The console's own port and the controller's are refused beside the field, by name.
  await saveMixedPort(page, consolePort);
  await expect(
    page.getByText(`The proxy port cannot be ${consolePort}: this console uses it.`),
  ).toBeVisible();
  await saveMixedPort(page, controllerPort);
  await expect(
    page.getByText(`The proxy port cannot be ${controllerPort}: the core's controller uses it.`),
  ).toBeVisible();
  await shootEverywhere(page, "settings-port-ours", {
    before: () => page.getByLabel(/^HTTP\/SOCKS/).scrollIntoViewIfNeeded(),
  });

  // 8080 is no port of this Gatehouse: taken when free, else refused as another program's
  // (whichever it is on this machine right now), never as a port kept by number.
  await saveMixedPort(page, 8080);
  await expect(
    page.getByText("Settings saved.").or(page.getByText(/Port 8080 is used by another program/)),
  ).toBeVisible();
  await expect(page.getByText(/kept for Gatehouse|used by the gateway itself/)).toHaveCount(0);

  const mixedPort = await freePort();
  await saveMixedPort(page, mixedPort);
  await expect(page.getByText("Settings saved.")).toBeVisible();
});

test("a save on trial says no 'Settings saved.'; the form's button is not the banner's 'Undo now'", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/settings");
  await runCore(page);
  await page.reload();

  const discard = page.getByRole("button", { name: "Discard unsaved edits" });
  // Nothing edited yet: nothing to discard.
  await expect(discard).toBeDisabled();
  await page.getByLabel("Proxy on", { exact: true }).uncheck();
  await expect(discard).toBeEnabled();
  await page.getByRole("button", { name: "Save settings" }).click();
  const banner = page.getByTestId("probation");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(/Keep these settings\?/);
  await expect(page.getByText("Settings saved.")).toHaveCount(0);
  await expect(discard).toBeDisabled();
  // Two different names for two different things.
  await expect(page.getByRole("button", { name: /^Undo/ })).toHaveCount(1);
  await expect(banner.getByRole("button", { name: "Undo now" })).toBeVisible();
  await shootEverywhere(page, "settings-on-trial", { fullPage: true });
  await setLang(page, "zh-CN");
  await expect(page.getByRole("button", { name: "放弃未保存的修改" })).toBeDisabled();
  await expect(page.getByText("设置已保存。")).toHaveCount(0);
  await setLang(page, "en");
  await banner.getByRole("button", { name: "Keep" }).click();
  await expect(page.getByText("The new settings are kept.")).toBeVisible();
});

test("on a phone the countdown stays under the bar: the menu button is never covered", async ({
  page,
}) => {
  await page.setViewportSize(PHONE);
  await signIn(page, svc, "#/settings");
  await runCore(page);
  const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
  const on = { ...settings.json, proxyEnabled: !settings.json.proxyEnabled };
  expect((await call(page, "PUT", "/settings", on)).probation).not.toBeNull();
  const banner = page.getByTestId("probation");
  await expect(banner).toBeVisible();
  const bar = page.locator("header.topbar");
  const menu = page.locator(".menu-button");
  for (const scroll of [0, 400, 2000]) {
    await page.evaluate((y) => window.scrollTo(0, y), scroll);
    const b = await banner.boundingBox();
    const h = await bar.boundingBox();
    expect(b && h, "both on screen").toBeTruthy();
    if (!b || !h) return;
    // The banner starts where the bar ends, at every scroll position.
    expect(b.y).toBeGreaterThanOrEqual(h.y + h.height - 1);
    // The menu button is the element at its own centre: nothing covers it.
    const hit = await menu.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return top === el || el.contains(top);
    });
    expect(hit).toBe(true);
  }
  // The menu opens over the banner.
  await page.evaluate(() => window.scrollTo(0, 400));
  await menu.click();
  const nav = page.locator("nav#console-nav a").first();
  await expect(nav).toBeVisible();
  const navOnTop = await nav.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.x + 10, r.y + r.height / 2);
    return top === el || el.contains(top);
  });
  expect(navOnTop).toBe(true);
  await page.keyboard.press("Escape");
  await shootEverywhere(page, "settings-trial-phone-scrolled", {
    before: () => page.evaluate(() => window.scrollTo(0, 600)),
  });
  await banner.getByRole("button", { name: "Keep" }).click();
});
