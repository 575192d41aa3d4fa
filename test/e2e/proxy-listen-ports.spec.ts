import { expect, test, type Page } from "@playwright/test";
import { rmSync } from "node:fs";
import net from "node:net";
import { failingCore, TEST_FAILED_LINE } from "../helpers/failing-core.js";
import { freePort, startProxyConsole } from "./support/proxy-harness.js";
import {
  callInPage as call,
  DESKTOP,
  PHONE,
  setLang,
  setUp,
  signIn,
} from "./support/proxy-page.js";
import { shootTarget } from "./support/proxy-shots.js";

/**
 * What a person sees when the core runs but cannot take connections on a saved port that
 * another program holds (another Clash on the mixed port, say): not a green "Online", an amber
 * state with the sentence and the way to Settings, in both languages. And a change the core
 * refuses is said in the reader's language, the core's own English lines folded apart.
 */

/** Waits until the service's /status says what `check` wants. */
async function statusWhen(page: Page, check: (s: StatusBody) => boolean): Promise<void> {
  await expect
    .poll(async () => check((await call<StatusBody>(page, "GET", "/status")).json), {
      timeout: 10_000,
    })
    .toBe(true);
}

interface StatusBody {
  coreOnline: boolean;
  listenProblems: Array<{ port: number }>;
}

test("a saved port another program holds shows a running core in amber, with the way to Settings, in both languages", async ({
  page,
}) => {
  const svc = await startProxyConsole();
  const holder = net.createServer((sock) => sock.destroy());
  try {
    await setUp(svc);
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/dashboard");
    // The port was free when it was saved; another program took it before the core started.
    const port = await freePort();
    const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
    expect(
      (await call(page, "PUT", "/settings", { ...settings.json, mixedPort: port })).status,
    ).toBe(200);
    await new Promise<void>((r) => holder.listen(port, "127.0.0.1", r));
    expect((await call(page, "POST", "/system/service", { action: "start" })).status).toBe(200);
    await statusWhen(page, (s) => s.coreOnline && s.listenProblems.length === 1);

    await page.reload();
    const card = page.getByRole("region", { name: "Proxy core" });
    const state = card.getByTestId("core-state");
    await expect(state).toHaveText("Running, port in use");
    await expect(state).toHaveClass(/badge-fair/);
    await expect(state).not.toHaveClass(/badge-good/);
    await expect(card.getByText("Online", { exact: true })).toHaveCount(0);
    const sentence =
      `The proxy core runs, but port ${port} is used by another program, so it cannot accept ` +
      "connections there. Choose another port in Settings or stop the other program.";
    await expect(card.getByText(sentence, { exact: true })).toHaveCount(1);
    await shootTarget(page, "dashboard-listen-port", card);

    await setLang(page, "zh-CN");
    const zhCard = page.getByRole("region", { name: "代理内核" });
    await expect(zhCard.getByTestId("core-state")).toHaveText("运行中，端口被占用");
    await expect(
      zhCard.getByText(
        `代理内核正在运行，但端口 ${port} 已被其他程序占用，因此无法在该端口接受连接。请在“设置”中换一个端口，或停止那个程序。`,
        { exact: true },
      ),
    ).toBeVisible();
    await expect(zhCard).not.toContainText(/used by another|Running|Online/);
    await shootTarget(page, "dashboard-listen-port", zhCard);

    await page.goto(`${svc.url}/#/system`);
    const zhService = page.getByRole("region", { name: "内核服务" });
    await expect(zhService.getByTestId("listen-problems")).toContainText(`端口 ${port}`);
    await shootTarget(page, "system-listen-port", zhService);

    await page.setViewportSize(PHONE);
    await shootTarget(page, "system-listen-port", zhService);
    await page.goto(`${svc.url}/#/dashboard`);
    await expect(zhCard.getByTestId("listen-problems")).toBeVisible();
    await shootTarget(page, "dashboard-listen-port", zhCard);
    await setLang(page, "en");
    await expect(card.getByTestId("listen-problems")).toContainText(sentence);
    await shootTarget(page, "dashboard-listen-port", card);
    // The way out: the Settings screen, where another port is chosen.
    await card.getByRole("link", { name: "Open Settings" }).click();
    await expect(page).toHaveURL(/#\/settings$/);
    await expect(page.getByLabel("HTTP/SOCKS port")).toHaveValue(String(port));

    await page.setViewportSize(DESKTOP);
    await page.goto(`${svc.url}/#/system`);
    const service = page.getByRole("region", { name: "Core service" });
    await expect(service.getByTestId("listen-problems")).toContainText(sentence);
    await shootTarget(page, "system-listen-port", service);

    // The other program stops; a restart binds the port and the state turns green again.
    await new Promise((r) => holder.close(r));
    await page.goto(`${svc.url}/#/dashboard`);
    await card.getByRole("button", { name: "Restart", exact: true }).click();
    await expect(card.getByText("The core was restarted.")).toBeVisible();
    await statusWhen(page, (s) => s.coreOnline && s.listenProblems.length === 0);
    await page.reload();
    await expect(state).toHaveText("Online");
    await expect(state).toHaveClass(/badge-good/);
    await expect(card.getByTestId("listen-problems")).toHaveCount(0);
  } finally {
    await call(page, "POST", "/system/service", { action: "stop" }).catch(() => undefined);
    if (holder.listening) await new Promise((r) => holder.close(r));
    await svc.close();
  }
});

test("a rule or settings change the core refuses is said in the reader's language, the core's lines folded apart", async ({
  page,
}) => {
  const core = failingCore({ failTest: true });
  const svc = await startProxyConsole({ coreBin: core.bin });
  try {
    await setUp(svc);
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await signIn(page, svc, "#/rules");
      await setLang(page, "zh-CN");
      const form = page.getByRole("form", { name: "添加规则" });
      await form.getByLabel("域名或地址段").fill(`refused-${viewport.width}.example.com`);
      await form.getByRole("button", { name: "添加规则" }).click();
      const said = form.getByRole("alert");
      await expect(said).toHaveText("代理内核检查配置时未通过。");
      // The core's own words: not inside the Chinese sentence, but folded under "内核输出".
      const output = form.getByTestId("core-output");
      await expect(output.locator("summary")).toHaveText("内核输出");
      await expect(output.locator("pre")).toBeHidden();
      await output.locator("summary").click();
      await expect(output.locator("pre")).toContainText("payloadRule error");
      await expect(output.locator("pre")).toHaveAttribute("lang", "en");
      await shootTarget(page, "rules-core-refused", form);

      await page.goto(`${svc.url}/#/settings`);
      await page.getByLabel("延迟测试超时（毫秒）").fill(String(4000 + viewport.width));
      await page.getByRole("button", { name: "保存设置" }).click();
      const actions = page.locator(".form-actions");
      await expect(actions.getByRole("alert")).toHaveText("代理内核检查配置时未通过。");
      await expect(actions.getByTestId("core-output").locator("summary")).toHaveText("内核输出");
      await actions.getByTestId("core-output").locator("summary").click();
      await expect(actions.getByTestId("core-output").locator("pre")).toContainText(
        TEST_FAILED_LINE.slice(TEST_FAILED_LINE.indexOf("msg=")),
      );
      await shootTarget(page, "settings-core-refused", actions);

      // The dashboard says the last refusal the same way.
      await page.goto(`${svc.url}/#/dashboard`);
      const card = page.getByRole("region", { name: "代理内核" });
      await expect(card.getByText("代理内核检查配置时未通过。")).toBeVisible();
      await expect(card.getByRole("alert").filter({ hasText: "payloadRule" })).toHaveCount(0);
      await shootTarget(page, "dashboard-core-refused", card);

      await setLang(page, "en");
      await page.goto(`${svc.url}/#/settings`);
      await page.getByLabel("Latency test timeout (ms)").fill(String(5000 + viewport.width));
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect(actions.getByRole("alert")).toHaveText(
        "The proxy core's test of the configuration failed.",
      );
      await expect(actions.getByTestId("core-output").locator("summary")).toHaveText("Core output");
      await shootTarget(page, "settings-core-refused", actions);
      await page.context().clearCookies();
    }
  } finally {
    await svc.close();
    rmSync(core.dir, { recursive: true, force: true });
  }
});
