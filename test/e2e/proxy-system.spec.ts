import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { coreCall, freePort, refusedPort, startProxyConsole } from "./support/proxy-harness.js";
import { callInPage, DESKTOP, PHONE, setLang, setUp, signIn } from "./support/proxy-page.js";
import { shootBothThemes, shootView } from "./support/proxy-shots.js";

/** Another controller on the port (another mihomo, with a secret Gatehouse does not know). */
async function otherController(port: number): Promise<http.Server> {
  const s = http.createServer((_req, res) => {
    res.writeHead(401, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ message: "Unauthorized" }));
  });
  await new Promise<void>((r) => s.listen(port, "127.0.0.1", r));
  return s;
}

test("a controller port held by another program is named on the dashboard and the System screen, in both languages", async ({
  page,
}) => {
  const port = await freePort();
  const holder = await otherController(port);
  const svc = await startProxyConsole({ controllerPort: port });
  try {
    await setUp(svc);
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/dashboard");
    const card = page.getByRole("region", { name: "Proxy core" });
    const sentence = `Port ${port} is used by another program`;
    await expect(card.getByText(sentence)).toHaveCount(1);
    await expect(card).not.toContainText("Unauthorized");
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/v1/system/service"));
    await card.getByRole("button", { name: "Start", exact: true }).click();
    expect((await answered).status()).toBe(400);
    await expect(card.getByText("Working…")).toHaveCount(0);
    // The refusal says the same as the status above it: it is said once.
    await expect(card.getByText(sentence)).toHaveCount(1);
    await expect(card).not.toContainText("Unauthorized");
    await expect(card).not.toContainText("not installed");
    await shootBothThemes(page, "dashboard-port-taken");

    await page.goto(`${svc.url}/#/system`);
    const service = page.getByRole("region", { name: "Core service" });
    await expect(service.getByTestId("controller-port")).toHaveText(String(port));
    await expect(service).toContainText("--core-controller-port");
    await shootBothThemes(page, "system-port");

    await setLang(page, "zh-CN");
    const zhService = page.getByRole("region", { name: "内核服务" });
    await expect(zhService.getByText("控制端口")).toBeVisible();
    await expect(zhService).toContainText("如需换用其他端口");
    await shootBothThemes(page, "system-port-zh");
    await page.goto(`${svc.url}/#/dashboard`);
    const zhCard = page.getByRole("region", { name: "代理内核" });
    await expect(zhCard.getByText(`端口 ${port} 已被其他程序占用`, { exact: false })).toHaveCount(
      1,
    );
    await shootBothThemes(page, "dashboard-port-taken-zh");

    await page.setViewportSize(PHONE);
    await expect(zhCard.getByText(`端口 ${port} 已被其他程序占用`, { exact: false })).toBeVisible();
    await shootBothThemes(page, "mobile-zh-dashboard-port-taken");
    await page.goto(`${svc.url}/#/system`);
    await expect(page.getByTestId("controller-port")).toHaveText(String(port));
    await shootBothThemes(page, "mobile-zh-system");
    await setLang(page, "en");
    await expect(page.getByTestId("controller-port")).toBeVisible();
    await shootBothThemes(page, "mobile-system");
  } finally {
    await svc.close();
    holder.closeAllConnections();
    await new Promise((r) => holder.close(r));
  }
});

test("the Logs page shows the kept core lines when it opens, then new ones once, and searches them", async ({
  page,
}) => {
  const port = await freePort();
  const svc = await startProxyConsole({ controllerPort: port });
  try {
    await setUp(svc);
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/dashboard");
    expect((await callInPage(page, "POST", "/system/service", { action: "start" })).status).toBe(
      200,
    );
    const secret = readFileSync(join(svc.dataDir, "proxy", "core", "secret"), "utf8").trim();
    const say = async (type: string, payload: string) => {
      const r = await fetch(`http://127.0.0.1:${port}/__sim/logs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ type, payload }),
      });
      expect(r.ok).toBe(true);
    };
    const kept = () =>
      (
        svc.service.ctx.core as unknown as { logFeed: { recent(): Array<{ payload: string }> } }
      ).logFeed
        .recent()
        .map((l) => l.payload);
    // The service follows the core's log on its own once the core runs.
    const followers = async () => {
      const r = await fetch(`http://127.0.0.1:${port}/__sim/state`, {
        headers: { Authorization: `Bearer ${secret}` },
      });
      return ((await r.json()) as { logStreams: number }).logStreams;
    };
    await expect.poll(followers).toBe(1);
    // Lines said while nobody has the Logs page open.
    await say("info", "gateway warmed up");
    await say("warning", "[TCP] dial node-a error: i/o timeout");
    await say("error", "proxy needle-node failed: connection refused");
    await expect.poll(() => kept().length).toBe(3);

    await page.goto(`${svc.url}/#/logs`);
    const card = page.getByRole("region", { name: "Core log" });
    await expect(card.getByText("proxy needle-node failed: connection refused")).toBeVisible();
    await expect(card.getByText("[TCP] dial node-a error: i/o timeout")).toBeVisible();
    await expect(card.getByText("Live", { exact: false })).toBeVisible();
    await say("info", "a line said while the page is open");
    await expect(card.getByText("a line said while the page is open")).toHaveCount(1);
    await expect(card.getByText("proxy needle-node failed: connection refused")).toHaveCount(1);
    await shootBothThemes(page, "logs-kept");

    await card.getByPlaceholder("Search the lines").fill("NEEDLE");
    await expect(card.getByText("proxy needle-node failed: connection refused")).toBeVisible();
    await expect(card.getByText("[TCP] dial node-a error: i/o timeout")).toHaveCount(0);
    await expect(card.getByRole("status")).toContainText("1 of");
    await card.getByPlaceholder("Search the lines").fill("no such words");
    await expect(card.getByText("No line matches the search.")).toBeVisible();
    await card.getByPlaceholder("Search the lines").fill("");
    await card.getByLabel("Level").selectOption("warning");
    await expect(card.getByText("gateway warmed up")).toHaveCount(0);
    await expect(card.getByText("[TCP] dial node-a error: i/o timeout")).toBeVisible();
    await card.getByLabel("Level").selectOption("info");

    await setLang(page, "zh-CN");
    const zh = page.getByRole("region", { name: "内核日志" });
    await expect(zh.getByText("服务会保留内核最近的 500 行日志", { exact: false })).toBeVisible();
    await expect(zh.getByPlaceholder("搜索日志")).toBeVisible();
    await shootBothThemes(page, "logs-kept-zh");
    await page.setViewportSize(PHONE);
    await expect(zh.getByPlaceholder("搜索日志")).toBeVisible();
    await shootBothThemes(page, "mobile-zh-logs");

    // After a reload the kept lines come again, each once.
    await page.reload();
    await expect(
      page
        .getByRole("region", { name: "内核日志" })
        .getByText("a line said while the page is open"),
    ).toHaveCount(1);
  } finally {
    await svc.close();
  }
});

test("the update check, a connectivity test, offline connections and a file that is no backup each say one plain sentence, in both languages", async ({
  page,
}) => {
  // Nobody answers on the release server's port nor on the core's mixed port (never started).
  const svc = await startProxyConsole(
    { coreReleaseURL: `http://127.0.0.1:${await refusedPort()}/latest` },
    { mixedPort: await refusedPort() },
  );
  try {
    await setUp(svc);
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/system");

    const updates = page.getByRole("region", { name: "Core updates" });
    await updates.getByRole("button", { name: "Check for updates" }).click();
    const failed = updates.getByRole("alert");
    await expect(failed).toHaveText(
      "The update check failed: the release server could not be reached.",
    );
    await expect(failed).not.toContainText("fetch failed");

    const sites = page.getByRole("region", { name: "Connectivity tests" });
    await sites.getByRole("button", { name: "Test Google" }).click();
    const google = sites.getByTestId("site-google");
    await expect(google).toContainText(
      "the proxy core does not accept connections; is it running?",
    );
    await expect(google).not.toContainText(/ECONN|connect /);

    const restore = page.getByRole("region", { name: "Backup and restore" });
    await restore.getByTestId("restore-input").setInputFiles({
      name: "hello.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ hello: 1 })),
    });
    // The file is read before anything is asked: no backup, no question.
    await expect(restore.getByRole("alert")).toHaveText(
      "hello.json is not a Gatehouse proxy backup: it has no settings, subscriptions and rules of this console. Nothing was changed.",
    );
    await expect(restore.getByRole("button", { name: "Restore", exact: true })).toHaveCount(0);
    await shootBothThemes(page, "system-words");

    await page.goto(`${svc.url}/#/connections`);
    // Never started: a state, not a fault.
    const offline =
      "The proxy core is stopped, so nothing goes through it. Connections are listed here by themselves once it is started on the Dashboard.";
    await expect(page.getByRole("main")).toContainText(offline);
    const text = (await page.getByRole("main").innerText()).toLowerCase();
    expect(text.split("proxy core").length - 1).toBe(1);
    expect(text).not.toMatch(/not connected|econnrefused/);
    await shootBothThemes(page, "connections-offline");

    await setLang(page, "zh-CN");
    await expect(page.getByRole("main")).toContainText(
      "代理内核已停止，没有流量经过它。在“概览”中启动它后，连接会自动列在这里。",
    );
    await shootBothThemes(page, "connections-offline-zh");
    await page.goto(`${svc.url}/#/system`);
    const zhUpdates = page.getByRole("region", { name: "内核更新" });
    await zhUpdates.getByRole("button", { name: "检查更新" }).click();
    await expect(zhUpdates.getByRole("alert")).toHaveText("检查更新失败：无法连接发布服务器。");
    const zhSites = page.getByRole("region", { name: "连通性测试" });
    await zhSites.getByRole("button", { name: "测试 Google" }).click();
    await expect(zhSites.getByTestId("site-google")).toContainText(
      "代理内核不接受连接，它在运行吗？",
    );
    const zhRestore = page.getByRole("region", { name: "备份与恢复" });
    await zhRestore.getByTestId("restore-input").setInputFiles({
      name: "hello.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ hello: 1 })),
    });
    await expect(zhRestore.getByRole("alert")).toHaveText(
      "hello.json 不是 Gatehouse 代理备份：其中没有本控制台的设置、订阅和规则。没有做任何更改。",
    );
    await shootBothThemes(page, "system-words-zh");
    await page.setViewportSize(PHONE);
    await shootBothThemes(page, "mobile-zh-system-words");

    // The TUN help of the settings screen, from the service's step codes.
    await page.setViewportSize(DESKTOP);
    await page.goto(`${svc.url}/#/settings`);
    const steps = page.getByTestId("gateway-steps");
    await expect(steps).toContainText("本服务不管理 DHCP");
    await expect(steps).not.toContainText(/[A-Za-z]{4,} [a-z]{3,} [a-z]{3,}/);
    await steps.scrollIntoViewIfNeeded();
    await shootBothThemes(page, "settings-tun-zh");
  } finally {
    await svc.close();
  }
});

test("with the core stopped the Logs and Connections pages say so without red, and the log follows the core when it is started elsewhere", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const port = await freePort();
  const svc = await startProxyConsole({ controllerPort: port });
  try {
    await setUp(svc);
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/logs");
    const card = page.getByRole("region", { name: "Core log" });
    const stopped = card.getByRole("status").filter({ hasText: "The proxy core is stopped" });
    // Never started: a state, said neutrally, as the dashboard says it.
    await expect(stopped).toHaveText(
      "The proxy core is stopped, so it writes no log. Its lines appear here by themselves once it is started on the Dashboard.",
    );
    await expect(card.locator(".alert-error")).toHaveCount(0);
    await setLang(page, "zh-CN");
    await expect(
      page.getByRole("region", { name: "内核日志" }).getByText("代理内核已停止，因此没有日志。", {
        exact: false,
      }),
    ).toBeVisible();
    await page.setViewportSize(PHONE);
    await shootView(page, "logs-core-stopped");
    await page.setViewportSize(DESKTOP);
    await setLang(page, "en");
    await shootBothThemes(page, "logs-core-stopped");

    // The connections screen says the same state the same way.
    const connectionsStopped = async () => {
      await page.goto(`${svc.url}/#/connections`);
      await stoppedSaid();
    };
    const stoppedSaid = async () => {
      const main = page.locator("main");
      await expect(
        main.getByRole("status").filter({ hasText: "The proxy core is stopped, so nothing" }),
      ).toHaveText(
        "The proxy core is stopped, so nothing goes through it. Connections are listed here by themselves once it is started on the Dashboard.",
      );
      await expect(main.locator(".alert-error")).toHaveCount(0);
    };
    await connectionsStopped();
    await shootBothThemes(page, "connections-core-stopped");
    await page.goto(`${svc.url}/#/logs`);
    await expect(stopped).toBeVisible();

    const sim = async (what: string, body: unknown) =>
      expect(await coreCall(svc, port, "POST", `/__sim/${what}`, body)).toBeLessThan(300);
    const say = (payload: string) => sim("logs", { type: "info", payload });
    const service = (action: "start" | "stop") =>
      callInPage(page, "POST", "/system/service", { action });
    // Started as from another tab: the page's stream opens again without a click, twice.
    for (const round of [1, 2]) {
      expect((await service("start")).status).toBe(200);
      await expect(card.getByText(/^Live ·/)).toBeVisible({ timeout: 15_000 });
      await expect(stopped).toHaveCount(0);
      await say(`a line after start ${round}`);
      await expect(card.getByText(`a line after start ${round}`)).toHaveCount(1);
      expect((await service("stop")).status).toBe(200);
      await expect(stopped).toBeVisible({ timeout: 15_000 });
      await expect(card.locator(".alert-error")).toHaveCount(0);
    }
    // Stopped after it ran: the same state.
    await connectionsStopped();
    // Connections listed while the core ran are gone once it stops, not left as if alive.
    expect((await service("start")).status).toBe(200);
    await sim("connections/bulk", { count: 3, churn: false });
    await expect(page.getByTestId("conn-count")).toHaveText("3 of 3", { timeout: 15_000 });
    expect((await service("stop")).status).toBe(200);
    await stoppedSaid();
    await expect(page.locator(".conn-table")).toHaveCount(0);
    await expect(page.getByTestId("conn-count")).toHaveText("0 of 0");
    // A search (a new window of the list) does not bring the old rows back.
    const search = page.getByPlaceholder("Search host, source, rule, chain");
    await search.fill("host");
    await search.fill("");
    await expect(page.locator(".conn-table")).toHaveCount(0);
  } finally {
    await svc.close();
  }
});
