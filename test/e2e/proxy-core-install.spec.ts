import { expect, test, type Locator, type Page } from "@playwright/test";
import { resolve } from "node:path";
import { startCoreReleaseServer, type CoreReleaseServer } from "../fixtures/core-release-server.js";
import { freePort, startProxyConsole } from "./support/proxy-harness.js";
import { callInPage as call, DESKTOP, setLang, setUp, signIn } from "./support/proxy-page.js";
import { shootView } from "./support/proxy-shots.js";
import { atBothSizesForShots } from "./support/shots.js";

/**
 * A new operator with no core: the dashboard offers Install, shows the download's progress,
 * and ends with a running core; the System screen then names the version, where it comes
 * from, the previous one, and goes back to it after a confirmation. In English and Chinese.
 */

// The rules' geodata, as the app ships it (the install brings only the executable).
const GEODATA = { geodataDirs: [resolve("test/fixtures")] };

const WORDS = {
  en: {
    card: "Proxy core",
    system: "Proxy core program",
    noCore: "No proxy core yet",
    install: "Install the proxy core",
    downloading: /^Downloading… .+ of .+ \(\d+ %\)$/,
    done: "The proxy core v1.19.30 is installed and running.",
    online: "Online",
    source: "Installed by Gatehouse",
    update: "Install the latest version",
    rollback: "Go back to v1.19.30",
    rollbackYes: "Go back",
    rolledBack: "The proxy core v1.19.30 is back in use.",
    testsNeedInstall:
      "Latency tests go through the proxy core, which is not installed yet. Install it on the Dashboard first.",
    state: "Stopped (not installed yet)",
    installFirst: "Install the proxy core on the Dashboard first: there is nothing to start yet.",
    start: "Start",
  },
  "zh-CN": {
    card: "代理内核",
    system: "代理内核程序",
    noCore: "尚未安装代理内核",
    install: "安装代理内核",
    downloading: /^正在下载… .+ \/ .+（\d+%）$/,
    done: "代理内核 v1.19.30 已安装并在运行。",
    online: "在线",
    source: "由 Gatehouse 安装",
    update: "安装最新版本",
    rollback: "回退到 v1.19.30",
    rollbackYes: "回退",
    rolledBack: "已换回代理内核 v1.19.30。",
    testsNeedInstall: "延迟测试要经过代理内核，而它尚未安装。请先在“概览”中安装它。",
    state: "已停止（尚未安装）",
    installFirst: "请先在“概览”中安装代理内核：现在还没有可以启动的程序。",
    start: "启动",
  },
} as const;

/** Light and dark of the screen with `target` in view, named by size and language. */
async function shoot(page: Page, name: string, target: Locator): Promise<void> {
  // The target's top below the sticky header.
  await target.evaluate((el) => {
    el.scrollIntoView({ block: "start" });
    window.scrollBy(0, -72);
  });
  await shootView(page, name);
}

/**
 * No English words in a Chinese screen: only names (Gatehouse, mihomo), versions and the
 * file's place in the data dir (`core/mihomo`).
 */
async function noEnglish(target: Locator): Promise<void> {
  const text = (await target.innerText()).replace(/\S*\/\S*|Gatehouse|mihomo|v\d+\.\d+\.\d+/g, "");
  expect(text).not.toMatch(/[A-Za-z]{3,}/);
}

/** Both sizes of one state of the screen. */
async function shootSizes(page: Page, name: string, target: Locator): Promise<void> {
  await atBothSizesForShots(page, () => shoot(page, name, target));
}

let rel: CoreReleaseServer;
test.beforeAll(async () => {
  rel = await startCoreReleaseServer();
});
test.afterAll(async () => rel.close());

for (const lang of ["en", "zh-CN"] as const) {
  test(`from no core to a running core with Install on the dashboard (${lang})`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    const w = WORDS[lang];
    rel.set({ tag: "v1.19.30", variant: "good", mode: "hold" });
    const svc = await startProxyConsole({
      coreBin: undefined,
      coreReleaseURL: rel.url,
      ...GEODATA,
    });
    try {
      await setUp(svc);
      await page.setViewportSize(DESKTOP);
      await signIn(page, svc, "#/dashboard");
      const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
      const mixedPort = await freePort();
      expect((await call(page, "PUT", "/settings", { ...settings.json, mixedPort })).status).toBe(
        200,
      );
      await setLang(page, lang);
      // Where a screen needs the core, it says to install it, not to start what is not there.
      await page.goto(`${svc.url}/#/nodes`);
      await expect(page.getByTestId("test-needs-core")).toHaveText(w.testsNeedInstall);
      await page.goto(`${svc.url}/#/dashboard`);

      const card = page.getByRole("region", { name: w.card, exact: true });
      const panel = card.locator(".install-panel");
      await expect(panel.getByRole("heading", { name: w.noCore })).toBeVisible();
      const install = panel.getByRole("button", { name: w.install });
      await expect(install).toBeEnabled();
      // Nothing to start yet: Start waits for the install, and says so once, in words.
      const start = card.getByRole("button", { name: w.start, exact: true });
      await expect(start).toBeDisabled();
      await expect(card.getByTestId("install-first")).toHaveText(w.installFirst);
      await expect(card.getByTestId("core-state").locator("..")).toHaveText(w.state);
      if (lang === "zh-CN") await noEnglish(card);
      await shootSizes(page, "dashboard-no-core", card);

      // The download holds at half: the page shows how far it got.
      await install.click();
      const progress = panel.getByTestId("install-progress");
      await expect(progress.getByRole("status")).toHaveText(w.downloading, { timeout: 10_000 });
      await expect(install).toBeDisabled();
      const bar = progress.locator("progress");
      // The first poll may come before the first bytes; the bar then shows the half it holds at.
      const value = () => bar.getAttribute("value").then(Number);
      await expect.poll(value, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(await value()).toBeLessThan(1);
      await shootSizes(page, "dashboard-core-installing", card);

      rel.release();
      await expect(card.getByText(w.done, { exact: true })).toBeVisible({ timeout: 20_000 });
      await expect(card.getByTestId("core-state")).toHaveText(w.online, { timeout: 10_000 });
      await expect(card.getByTestId("install-first")).toHaveCount(0);
      const status = await call<{ coreOnline: boolean; version: string }>(page, "GET", "/status");
      expect(status.json).toMatchObject({ coreOnline: true, version: "v1.19.30" });
      await shootSizes(page, "dashboard-core-installed", card);

      // The System screen names it, and a newer release replaces it in place.
      await page.goto(`${svc.url}/#/system`);
      const program = page.getByRole("region", { name: w.system });
      await expect(program.getByTestId("core-program-version")).toHaveText("v1.19.30");
      await expect(program.getByTestId("core-program-source")).toHaveText(w.source);
      rel.set({ tag: "v1.19.31", mode: "ok" });
      await program.getByRole("button", { name: w.update }).click();
      await expect(program.getByTestId("core-program-version")).toHaveText("v1.19.31", {
        timeout: 20_000,
      });
      await expect(program.getByTestId("core-program-previous")).toHaveText("v1.19.30");

      // Going back asks first.
      await program.getByRole("button", { name: w.rollback }).click();
      const ask = program.getByRole("group");
      await expect(ask).toContainText("v1.19.31");
      await shootSizes(page, "system-core-rollback-ask", program);
      await ask.getByRole("button", { name: w.rollbackYes, exact: true }).click();
      await expect(program.getByText(w.rolledBack, { exact: true })).toBeVisible({
        timeout: 20_000,
      });
      await expect(program.getByTestId("core-program-version")).toHaveText("v1.19.30");
      await expect(program.getByTestId("core-program-previous")).toHaveText("v1.19.31");
      if (lang === "zh-CN") await noEnglish(program);
      await shootSizes(page, "system-core-program", program);
      const after = await call<{ coreOnline: boolean; version: string }>(page, "GET", "/status");
      expect(after.json).toMatchObject({ coreOnline: true, version: "v1.19.30" });
    } finally {
      rel.release();
      await call(page, "POST", "/system/service", { action: "stop" }).catch(() => undefined);
      await svc.close();
    }
  });
}
