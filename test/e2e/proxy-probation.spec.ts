import { expect, test, type Page } from "@playwright/test";
import { ManualClock } from "../../server/clock.js";
import { freePort, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import {
  callInPage as call,
  DESKTOP,
  PHONE,
  setLang,
  setUp,
  signIn,
} from "./support/proxy-page.js";
import { shootView } from "./support/proxy-shots.js";

/**
 * Confirm or revert as a person meets it: after a change that can cut the console off, a
 * banner with a live countdown and Keep / Undo now on every screen; after the service undid an
 * unconfirmed change, a notice that says so. English and Chinese, wide and phone, light and
 * dark. The service's clock is moved by hand; its deadline check runs when the test asks.
 */

async function start(clock: ManualClock): Promise<ProxyConsole> {
  const svc = await startProxyConsole({ clock, probationCheckMs: 0 });
  await setUp(svc);
  return svc;
}

/** Free ports for the core's listeners, then the core started. */
async function runCore(page: Page): Promise<void> {
  const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
  const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
  expect((await call(page, "PUT", "/settings", { ...settings.json, ...ports })).status).toBe(200);
  const started = await call(page, "POST", "/system/service", { action: "start" });
  expect(started.status, JSON.stringify(started.json)).toBe(200);
}

/** The change that can cut the operator off: the proxy switch, as Settings would save it. */
async function turnProxyOff(page: Page): Promise<void> {
  const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
  const r = await call(page, "PUT", "/settings", { ...settings.json, proxyEnabled: false });
  expect(r.status).toBe(200);
  expect(r.probation).not.toBeNull();
}

async function shoot(page: Page, name: string): Promise<void> {
  await shootView(page, name, { top: true });
}

for (const [label, viewport] of [
  ["wide", DESKTOP],
  ["phone", PHONE],
] as const) {
  test(`a change on probation shows a countdown with Keep and Undo now on every screen (${label})`, async ({
    page,
  }) => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    const svc = await start(clock);
    try {
      await page.setViewportSize(viewport);
      await signIn(page, svc, "#/dashboard");
      await runCore(page);
      const banner = page.getByTestId("probation");
      await expect(banner).toHaveCount(0);

      await turnProxyOff(page);
      clock.advance(18_000);
      await expect(banner).toBeVisible();
      await expect(banner).toContainText(
        /Keep these settings\? They are undone in (4[0-2]) s unless you confirm\./,
      );
      await expect(banner.getByRole("button", { name: "Keep" })).toBeVisible();
      await expect(banner.getByRole("button", { name: "Undo now" })).toBeVisible();
      await shoot(page, "probation");

      // Another screen: the banner is part of the console, not of one screen.
      await page.goto(`${svc.url}/#/nodes`);
      await expect(page.getByTestId("probation")).toBeVisible();
      await setLang(page, "zh-CN");
      await expect(banner).toContainText(/保留这些设置？如不确认，将在 (4[0-2]) 秒后撤销。/);
      await expect(banner.getByRole("button", { name: "保留" })).toBeVisible();
      await expect(banner.getByRole("button", { name: "立即撤销" })).toBeVisible();
      await expect(banner).not.toContainText(/[A-Za-z]{3,}/);
      await shoot(page, "probation-nodes");

      if (label === "wide") {
        await banner.getByRole("button", { name: "保留" }).click();
        await expect(page.getByText("已保留新设置。")).toBeVisible();
        await expect(banner).toHaveCount(0);
        expect(
          (await call<{ proxyEnabled: boolean }>(page, "GET", "/settings")).json.proxyEnabled,
        ).toBe(false);
        expect((await call(page, "POST", "/system/confirm", {})).status).toBe(409);
      } else {
        await banner.getByRole("button", { name: "立即撤销" }).click();
        await expect(page.getByText("已撤销更改，之前的设置已恢复。")).toBeVisible();
        await expect(banner).toHaveCount(0);
        expect(
          (await call<{ proxyEnabled: boolean }>(page, "GET", "/settings")).json.proxyEnabled,
        ).toBe(true);
      }
    } finally {
      await svc.close();
    }
  });

  test(`an unconfirmed change is undone at the deadline and the console says so (${label})`, async ({
    page,
  }) => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    const svc = await start(clock);
    try {
      await page.setViewportSize(viewport);
      await signIn(page, svc, "#/settings");
      await runCore(page);
      await turnProxyOff(page);
      await expect(page.getByTestId("probation")).toBeVisible();
      // The form shows the change on probation...
      await page.reload();
      const proxySwitch = page.getByLabel("Proxy on", { exact: true });
      await expect(proxySwitch).not.toBeChecked();
      clock.advance(60_000);
      await svc.service.probation.tick();
      const notice = page.getByTestId("probation-notice");
      await expect(notice).toHaveText(
        /The settings change was not confirmed within 60 seconds, so the previous settings were restored and the core restarted\./,
      );
      await expect(page.getByTestId("probation")).toHaveCount(0);
      // ...and, once it was rolled back, what the service holds again.
      await expect(proxySwitch).toBeChecked();
      await shoot(page, "probation-rolled-back");
      await setLang(page, "zh-CN");
      await expect(notice).toContainText(
        "设置更改未在 60 秒内确认，已恢复之前的设置并重新启动内核。",
      );
      await expect(notice).not.toContainText(/[A-Za-z]{3,}/);
      await shoot(page, "probation-rolled-back");
      await notice.getByRole("button", { name: "知道了" }).click();
      await expect(notice).toHaveCount(0);
      const status = await call<{ configErrorCode: string }>(page, "GET", "/status");
      expect(status.json.configErrorCode).toBe("");
    } finally {
      await svc.close();
    }
  });
}
