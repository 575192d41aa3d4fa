import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import net from "node:net";
import {
  PASSWORD,
  freePort,
  openTunnel,
  startProxyConsole,
  type ProxyConsole,
} from "./support/proxy-harness.js";
import { callOk } from "./support/proxy-page.js";
import { shootBothThemes } from "./support/proxy-shots.js";

let svc: ProxyConsole;

test.beforeAll(async () => {
  svc = await startProxyConsole();
});
test.afterAll(async () => {
  await svc?.close();
});

test.describe("proxy console", () => {
  test("setup, subscription, node selection, settings, rules, backup/restore and core start", async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const api = (path: string) => `${svc.url}/api/v1${path}`;
    // The console must run under the service's strict CSP without violations or crashes.
    const problems: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(svc.url);
    // The core's mixed port: a free one, so parallel runs do not collide.
    const mixedPort = await freePort();

    // First setup: the browser asks for the token and says where it comes from.
    await expect(page.getByRole("heading", { name: "Set up the proxy console" })).toBeVisible();
    await expect(page.getByText("<data-dir>/proxy/setup-token")).toBeVisible();
    await shootBothThemes(page, "setup");
    await page.getByLabel("Setup token").fill(svc.token);
    await page.getByLabel("New password").fill("short");
    await page.getByLabel("Repeat the password").fill("short");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await expect(page.getByText(/The password is too short: at least 12 characters/)).toBeVisible();
    await page.getByLabel("New password").fill(PASSWORD);
    await page.getByLabel("Repeat the password").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await expect(page.getByRole("heading", { name: "Dashboard", level: 1 })).toBeVisible();
    await expect(page.getByTestId("core-state")).toHaveText("Stopped");
    await shootBothThemes(page, "dashboard-offline");

    // Add a subscription: the console refreshes it right after creating it.
    await page.getByRole("link", { name: "Subscriptions" }).click();
    await page.getByRole("button", { name: "Add subscription" }).click();
    await page.getByLabel("Name").fill("Provider A");
    await page.getByLabel("Subscription URL").fill("ftp://nope");
    await page.getByRole("button", { name: "Add and refresh" }).click();
    await expect(page.getByText("Enter an http:// or https:// address.")).toBeVisible();
    await page.getByLabel("Subscription URL").fill(svc.feedUrl);
    await page.getByRole("button", { name: "Add and refresh" }).click();
    await expect(page.getByText("Provider A was added and its nodes were fetched.")).toBeVisible();
    const item = page.getByRole("listitem", { name: "Provider A" });
    await expect(item.getByRole("progressbar", { name: "Data used" })).toHaveAttribute(
      "aria-valuenow",
      "5",
    );
    await expect(item.getByText(/expires/)).toBeVisible();
    await item.getByRole("button", { name: "Refresh" }).click();
    await expect(item.getByText("Refreshed: the nodes are up to date.")).toBeVisible();
    const subs = (await (await page.request.get(api("/subscriptions"))).json()) as Array<{
      nodeCount: number;
    }>;
    expect(subs).toHaveLength(1);
    expect(subs[0].nodeCount).toBeGreaterThan(2);
    await expect(item.getByText(`${subs[0].nodeCount} nodes`)).toBeVisible();
    await shootBothThemes(page, "subscriptions");

    // Nodes appear grouped by subscription; pick one manually.
    await page.getByRole("link", { name: "Nodes" }).click();
    const hk = page.getByRole("listitem", { name: /Hong Kong 01$/ });
    await expect(hk).toBeVisible();
    await page.getByPlaceholder("Filter nodes").fill("tokyo");
    await expect(hk).toHaveCount(0);
    await page.getByPlaceholder("Filter nodes").fill("");
    await hk.getByRole("button", { name: /Use node/ }).click();
    await expect(page.getByText("Selection saved.")).toBeVisible();
    await expect(hk.getByText("In use")).toBeVisible();
    await expect(page.getByRole("radio", { name: "Manual" })).toBeChecked();
    const afterSelect = (await (await page.request.get(api("/settings"))).json()) as {
      selectionMode: string;
      selectedNode: string;
    };
    expect(afterSelect.selectionMode).toBe("manual");
    expect(afterSelect.selectedNode).toMatch(/Hong Kong 01$/);
    await shootBothThemes(page, "nodes");

    // Change a setting; the client check stops a clash before it reaches the server.
    await page.getByRole("link", { name: "Settings" }).click();
    const mixed = page.getByLabel("HTTP/SOCKS port");
    await expect(mixed).toHaveValue(String(svc.mixedPort));
    const consolePort = new URL(svc.url).port;
    await mixed.fill(consolePort);
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(
      page.getByText(`The proxy port cannot be ${consolePort}: this console uses it.`),
    ).toBeVisible();
    await page.getByLabel("TUN mode on").check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Needed for TUN mode.").first()).toBeVisible();
    await expect(page.getByText("Must be 53 in TUN mode.", { exact: true }).first()).toBeVisible();
    await page.getByLabel("TUN mode on").uncheck();
    await mixed.fill(String(mixedPort));
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved.")).toBeVisible();
    const settings = (await (await page.request.get(api("/settings"))).json()) as {
      mixedPort: number;
      selectionMode: string;
    };
    expect(settings.mixedPort).toBe(mixedPort);
    expect(settings.selectionMode).toBe("manual");
    await shootBothThemes(page, "settings");

    // Rules: add two, then move the second above the first.
    await page.getByRole("link", { name: "Rules" }).click();
    await expect(page.getByText("All other destinations")).toBeVisible();
    const addForm = page.getByRole("form", { name: "Add rule" });
    await addForm.getByLabel("Domain or address range").fill("Example.COM");
    await addForm.getByRole("button", { name: "Add rule" }).click();
    await expect(page.getByRole("listitem", { name: "DOMAIN-SUFFIX example.com" })).toBeVisible();
    await addForm.getByLabel("Type").selectOption("IP-CIDR");
    await addForm.getByLabel("Domain or address range").fill("10.1.0.0/16");
    await addForm.getByLabel("Route").selectOption("PROXY");
    await addForm.getByRole("button", { name: "Add rule" }).click();
    await expect(page.getByRole("listitem", { name: "IP-CIDR 10.1.0.0/16" })).toBeVisible();
    await page.getByRole("button", { name: "Move IP-CIDR 10.1.0.0/16 up" }).click();
    await expect(page.getByText("New order saved.")).toBeVisible();
    const rules = (await (await page.request.get(api("/rules"))).json()) as {
      custom: Array<{ value: string }>;
    };
    expect(rules.custom.map((r) => r.value)).toEqual(["10.1.0.0/16", "example.com"]);
    await expect(
      page.getByRole("list", { name: "Your rules" }).getByRole("listitem").first(),
    ).toHaveAccessibleName("IP-CIDR 10.1.0.0/16");
    await shootBothThemes(page, "rules");

    // Backup download, then a change, then restore brings the backup's state back.
    await page.getByRole("link", { name: "System" }).click();
    const downloading = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download backup" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^gatehouse-proxy-\d{4}-\d{2}-\d{2}\.json$/);
    const file = await download.path();
    const backup = JSON.parse(readFileSync(file, "utf8")) as {
      version: number;
      state: { settings: { mixedPort: number }; rules: unknown[]; subscriptions: unknown[] };
    };
    expect(backup.version).toBe(1);
    expect(backup.state.settings.mixedPort).toBe(mixedPort);
    expect(backup.state.rules).toHaveLength(2);
    expect(backup.state.subscriptions).toHaveLength(1);

    const rule = await callOk<{ custom: Array<{ id: string }> }>(page, "GET", "/rules");
    await callOk(page, "DELETE", `/rules/${rule.custom[0].id}`);
    await page.getByTestId("restore-input").setInputFiles(file);
    await page.getByRole("button", { name: "Restore", exact: true }).click();
    await expect(page.getByText("The backup was restored.")).toBeVisible();
    const restored = (await (await page.request.get(api("/rules"))).json()) as {
      custom: Array<{ value: string }>;
    };
    expect(restored.custom.map((r) => r.value)).toEqual(["10.1.0.0/16", "example.com"]);

    // A file that is not a backup is refused with words before anything is asked.
    await page.getByTestId("restore-input").setInputFiles({
      name: "x.json",
      mimeType: "application/json",
      buffer: Buffer.from("{nope"),
    });
    await expect(
      page.getByText(
        "x.json is not a Gatehouse proxy backup: it is not a JSON file. Nothing was changed.",
      ),
    ).toBeVisible();
    await page.getByTestId("restore-input").setInputFiles({
      name: "v2.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ ...backup, version: 2 })),
    });
    await expect(
      page.getByText(
        "v2.json cannot be restored: only backups of version 1 can be restored. Nothing was changed.",
      ),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Restore", exact: true })).toHaveCount(0);
    await page.getByRole("button", { name: "Check for updates" }).click();
    await expect(page.getByText("v1.19.9")).toBeVisible();
    await expect(page.getByRole("link", { name: "Release notes" })).toHaveAttribute(
      "href",
      /v1\.19\.9$/,
    );
    await shootBothThemes(page, "system");

    // Start the core; the dashboard then shows it online with its version.
    await page
      .getByRole("group", { name: "Core service" })
      .getByRole("button", { name: "Start", exact: true })
      .click();
    await expect(page.getByText("The core was started.")).toBeVisible({ timeout: 20_000 });
    await page.getByRole("link", { name: "Dashboard" }).click();
    await expect(page.getByTestId("core-state")).toHaveText("Online", { timeout: 15_000 });
    await expect(page.getByTestId("actual-node")).toContainText("Hong Kong 01", {
      timeout: 15_000,
    });
    // Let a few 2-second metrics samples arrive so the chart has lines to show.
    await expect
      .poll(async () => Number(await page.locator("figure.chart").getAttribute("data-samples")), {
        timeout: 15_000,
      })
      .toBeGreaterThanOrEqual(3);
    await shootBothThemes(page, "dashboard");

    // With the core up, a group latency test colours the nodes; a site test answers in words.
    await page.getByRole("link", { name: "Nodes" }).click();
    await page.getByRole("button", { name: "Test the nodes of Provider A" }).click();
    await expect(page.getByRole("button", { name: "Test the nodes of Provider A" })).toBeEnabled({
      timeout: 30_000,
    });
    await expect(hk.locator(".latency")).not.toHaveText("not tested");
    await shootBothThemes(page, "nodes-tested");
    await page.getByRole("link", { name: "System" }).click();
    await page.getByRole("button", { name: "Test Baidu" }).click();
    await expect(page.getByTestId("site-baidu")).not.toHaveText(/not tested|waiting|testing/, {
      timeout: 20_000,
    });

    // A real tunnel through the core's mixed port shows up and is closed from the table.
    await page.getByRole("link", { name: "Connections" }).click();
    await expect(page.getByTestId("conn-count")).toBeVisible();
    const target = Number(new URL(svc.url).port);
    const open = await openTunnel(mixedPort, target);
    const closed = new Promise<void>((ok) => open.once("close", () => ok()));
    const closeOne = page.getByRole("button", {
      name: `Close the connection to 127.0.0.1:${target}`,
    });
    await expect(closeOne).toBeVisible({ timeout: 15_000 });
    await shootBothThemes(page, "connections");
    await closeOne.click();
    await closed;
    await expect(closeOne).toHaveCount(0, { timeout: 15_000 });

    // The core's own log lines arrive live (the stream may attach a moment after "Live").
    await page.getByRole("link", { name: "Logs" }).click();
    await expect(page.getByText("Live")).toBeVisible({ timeout: 10_000 });
    const line = page.getByText(`--> 127.0.0.1:${target} match IPCIDR(127.0.0.0/8) using DIRECT`);
    await expect(async () => {
      const s: net.Socket = await openTunnel(mixedPort, target);
      s.destroy();
      await expect(line.first()).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 15_000 });
    await shootBothThemes(page, "logs");

    // Logging out returns to the login form; logging in again works.
    await page.getByRole("button", { name: "Log out" }).click();
    await expect(page.getByText("You have signed out.")).toBeVisible();
    await shootBothThemes(page, "login");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("heading", { name: "Logs", level: 1 })).toBeVisible();
    expect(problems).toEqual([]);
  });
});
