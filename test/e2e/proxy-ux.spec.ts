import { expect, test, type Page } from "@playwright/test";
import net from "node:net";
import {
  freePort,
  openTunnel,
  startProxyConsole,
  type ProxyConsole,
} from "./support/proxy-harness.js";
import { SHOTS_DIR, shootView } from "./support/proxy-shots.js";
import {
  callOk,
  DESKTOP,
  PHONE,
  seeCoreRunning,
  setLang,
  setUp,
  signIn,
} from "./support/proxy-page.js";
import { inBothThemes, saveShot } from "./support/shots.js";

/**
 * The proxy console where a person looks first: rules that can be edited and switched off,
 * notices after each change, duplicates refused in words, nodes by delay with a legend, a
 * connection's details with subscription names, Start only when it can start, and a phone
 * menu that leaves the screen to the page.
 */

let svc: ProxyConsole;

test.beforeAll(async () => {
  svc = await startProxyConsole();
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
});
test.describe.configure({ mode: "serial" });

/** A subscription id in the words on a screen (24 hexadecimal characters). */
const RAW_ID = /\b[0-9a-f]{24}\b/;

/**
 * Light and dark, English and Chinese, of what is on screen now (the viewport only). A panel
 * that covers the language picker is opened after each switch (`open`) and closed again.
 */
async function shoot(
  page: Page,
  name: string,
  panel?: { open(): Promise<void>; close(): Promise<void> },
): Promise<void> {
  for (const lang of ["en", "zh-CN"] as const) {
    await setLang(page, lang);
    await panel?.open();
    await shootView(page, `ux-${name}`);
    await panel?.close();
  }
  await setLang(page, "en");
}

interface Rule {
  id: string;
  type: string;
  value: string;
  action: string;
  enabled: boolean;
}

test.describe("proxy console where people look", () => {
  test("phone: the menu folds behind one button and the page starts right under the bar", async ({
    browser,
  }) => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await signIn(page, svc, "#/dashboard");
    await expect(page.getByRole("heading", { name: "Dashboard", level: 1 })).toBeVisible();
    const top = await page.locator("main h1").evaluate((el) => el.getBoundingClientRect().top);
    expect(top).toBeLessThanOrEqual(100);
    // The sections, the pickers and Log out are folded away until the menu opens.
    const menu = page.getByRole("button", { name: "Menu" });
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(page.getByRole("link", { name: "Nodes" })).toBeHidden();
    await expect(page.getByRole("button", { name: "Log out" })).toBeHidden();
    await shoot(page, "phone-menu-closed");

    await menu.click();
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByRole("link", { name: "Nodes" })).toBeVisible();
    await expect(page.getByLabel("Language")).toBeVisible();
    await expect(page.getByRole("button", { name: "Log out" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("link", { name: "Nodes" })).toBeHidden();
    await expect(menu).toBeFocused();
    await menu.click();
    await page.getByRole("link", { name: "Nodes" }).click();
    await expect(page.getByRole("heading", { name: "Nodes", level: 1 })).toBeVisible();
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(page.getByRole("link", { name: "Rules" })).toBeHidden();

    // Open, in both languages and themes, for the record.
    for (const lang of ["en", "zh-CN"] as const) {
      await setLang(page, lang);
      await inBothThemes(page, async (scheme) => {
        await page.locator(".menu-button").click();
        await expect(page.locator("#console-nav")).toBeVisible();
        await saveShot(page, {
          path: `${SHOTS_DIR}/proxy-ux-phone-menu-open-390-${lang}-${scheme}.png`,
        });
        await page.keyboard.press("Escape");
      });
    }
    const zhTop = await page.locator("main h1").evaluate((el) => el.getBoundingClientRect().top);
    expect(zhTop).toBeLessThanOrEqual(100);
    await context.close();
  });

  test("a rule is added, edited, saved and switched off from the list; the service holds each change", async ({
    page,
  }) => {
    await page.setViewportSize(DESKTOP);
    const puts: unknown[] = [];
    page.on("request", (req) => {
      if (req.method() === "PUT" && /\/api\/v1\/rules\/[0-9a-f]{24}$/.test(req.url()))
        puts.push(req.postDataJSON());
    });
    await signIn(page, svc, "#/rules");
    const addForm = page.getByRole("form", { name: "Add rule" });
    await addForm.getByLabel("Type").selectOption("DOMAIN-SUFFIX");
    await addForm.getByLabel("Domain or address range").fill("Example.COM");
    await addForm.getByRole("button", { name: "Add rule" }).click();
    await expect(
      page.getByText("Rule added: example.com and its subdomains → direct."),
    ).toBeVisible();
    const row = page.getByRole("listitem", { name: "DOMAIN-SUFFIX example.com" });
    await expect(row).toBeVisible();

    // The same rule again is refused in words, and the list keeps one.
    await addForm.getByLabel("Domain or address range").fill("example.com");
    await addForm.getByRole("button", { name: "Add rule" }).click();
    await expect(
      addForm.getByText(
        "Rule 1 in the list is already example.com and its subdomains → direct; change that one instead.",
      ),
    ).toBeVisible();
    expect((await callOk<{ custom: Rule[] }>(page, "GET", "/rules")).custom).toHaveLength(1);

    // Edit: the form sends only the rule's fields and the change is stored.
    await row.getByRole("button", { name: "Edit DOMAIN-SUFFIX example.com" }).click();
    const edit = row.getByRole("form", { name: "Save" });
    await edit.getByLabel("Domain or address range").fill("example.org");
    await edit.getByLabel("Route").selectOption("PROXY");
    await edit.getByRole("button", { name: "Save" }).click();
    await expect(
      page.getByText("Rule saved: example.org and its subdomains → through the proxy."),
    ).toBeVisible();
    let custom = (await callOk<{ custom: Rule[] }>(page, "GET", "/rules")).custom;
    expect(custom).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        type: "DOMAIN-SUFFIX",
        value: "example.org",
        action: "PROXY",
        enabled: true,
      },
    ]);
    expect(puts).toEqual([
      { type: "DOMAIN-SUFFIX", value: "example.org", action: "PROXY", enabled: true },
    ]);

    // Switched off from the list, without opening the form; then on again.
    const edited = page.getByRole("listitem", { name: "DOMAIN-SUFFIX example.org" });
    const toggle = edited.getByRole("checkbox", { name: "Use the rule DOMAIN-SUFFIX example.org" });
    await expect(toggle).toBeChecked();
    await toggle.uncheck();
    await expect(
      page.getByText(
        "Rule off (kept in the list): example.org and its subdomains → through the proxy.",
      ),
    ).toBeVisible();
    await expect(edited.getByText("off", { exact: true })).toBeVisible();
    custom = (await callOk<{ custom: Rule[] }>(page, "GET", "/rules")).custom;
    expect(custom.map((r) => [r.value, r.action, r.enabled])).toEqual([
      ["example.org", "PROXY", false],
    ]);
    await shoot(page, "rules");
    await toggle.check();
    await expect(
      page.getByText("Rule on again: example.org and its subdomains → through the proxy."),
    ).toBeVisible();
    custom = (await callOk<{ custom: Rule[] }>(page, "GET", "/rules")).custom;
    expect(custom[0].enabled).toBe(true);
    expect(puts).toHaveLength(3);
    for (const body of puts)
      expect(Object.keys(body as object).sort()).toEqual(["action", "enabled", "type", "value"]);
  });

  test("a subscription: a notice after adding and after saving, and its address cannot be added twice", async ({
    page,
  }) => {
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/subscriptions");
    await page.getByRole("button", { name: "Add subscription" }).click();
    await page.getByLabel("Name").fill("Provider A");
    await page.getByLabel("Subscription URL").fill(svc.feedUrl);
    await page.getByRole("button", { name: "Add and refresh" }).click();
    await expect(page.getByText("Provider A was added and its nodes were fetched.")).toBeVisible();

    await page.getByRole("button", { name: "Add subscription" }).click();
    await page.getByLabel("Name").fill("Provider A again");
    await page.getByLabel("Subscription URL").fill(svc.feedUrl);
    await page.getByRole("button", { name: "Add and refresh" }).click();
    await expect(
      page.getByText("The subscription Provider A already uses this address."),
    ).toBeVisible();
    const subs = await callOk<Array<{ name: string }>>(page, "GET", "/subscriptions");
    expect(subs.map((s) => s.name)).toEqual(["Provider A"]);
    await shoot(page, "subscription-duplicate");
    await page.getByRole("button", { name: "Cancel" }).click();

    const item = page.getByRole("listitem", { name: "Provider A" });
    await item.getByRole("button", { name: "Edit" }).click();
    await item.getByLabel("Refresh every (hours)").fill("12");
    await item.getByRole("button", { name: "Save" }).click();
    await expect(item.getByText("Changes to Provider A were saved.")).toBeVisible();
    const after = await callOk<Array<{ intervalHours: number }>>(page, "GET", "/subscriptions");
    expect(after[0].intervalHours).toBe(12);
  });

  test("nodes sort by name and by delay, carry colour with words, and a test clears old figures while it runs", async ({
    page,
  }) => {
    await page.setViewportSize(DESKTOP);
    const sub = "a".repeat(24);
    const node = (name: string, delay: number | null) => ({
      id: `${sub}/sub-${sub}/${name}`,
      name,
      subscriptionID: sub,
      subscriptionName: "Provider A",
      type: "ss",
      udp: false,
      delay,
      alive: delay === null ? null : delay > 0,
      selected: false,
    });
    const nodes = [
      node("Delta slow", 800),
      node("alpha fast", 40),
      node("Charlie failed", 0),
      node("bravo medium", 300),
      node("echo untested", null),
    ];
    let release: () => void = () => undefined;
    const answered = new Promise<void>((ok) => (release = ok));
    await seeCoreRunning(page);
    await page.route("**/api/v1/nodes", (route) => route.fulfill({ json: nodes }));
    await page.route("**/api/v1/nodes/test", async (route) => {
      const { ids } = route.request().postDataJSON() as { ids: string[] };
      await answered;
      const out: Record<string, { delay: number; error: string }> = {};
      ids.forEach((id, i) => (out[id] = { delay: 100 + i * 10, error: "" }));
      await route.fulfill({ json: out });
    });
    await signIn(page, svc, "#/nodes");
    const names = () =>
      page.locator(".nodes .node-name").evaluateAll((els) => els.map((e) => e.textContent));
    const latency = (name: string) =>
      page.getByRole("listitem", { name, exact: true }).locator(".latency");

    await expect
      .poll(names)
      .toEqual(["Delta slow", "alpha fast", "Charlie failed", "bravo medium", "echo untested"]);
    await page.getByLabel("Sort").selectOption({ label: "By name" });
    await expect
      .poll(names)
      .toEqual(["alpha fast", "bravo medium", "Charlie failed", "Delta slow", "echo untested"]);
    await page.getByLabel("Sort").selectOption({ label: "By delay, fastest first" });
    await expect
      .poll(names)
      .toEqual(["alpha fast", "bravo medium", "Delta slow", "Charlie failed", "echo untested"]);
    // Colour and word together, with a legend of what each colour means.
    await expect(latency("alpha fast")).toHaveAttribute("data-latency", "good");
    await expect(latency("alpha fast")).toHaveAttribute("title", "fast");
    await expect(latency("bravo medium")).toHaveAttribute("data-latency", "medium");
    await expect(latency("Delta slow")).toHaveAttribute("data-latency", "slow");
    await expect(latency("Delta slow")).toHaveText("800 ms (slow)");
    await expect(latency("Charlie failed")).toHaveAttribute("data-latency", "failed");
    await expect(latency("echo untested")).toHaveAttribute("data-latency", "unknown");
    const legend = page.getByRole("list", { name: "What the colours mean" });
    await expect(legend).toContainText("fast under 200 ms");
    await expect(legend).toContainText("medium 200–499 ms");
    await expect(legend).toContainText("slow 500 ms or more");
    await expect(legend).toContainText("failed no answer in time");
    await shoot(page, "nodes-sorted");

    // While the test runs, no old figure is left standing.
    await page.getByRole("button", { name: "Test all shown" }).click();
    await expect(page.locator('.nodes [data-latency="testing"]')).toHaveCount(5);
    await expect(page.locator(".nodes .latency").filter({ hasText: /ms/ })).toHaveCount(0);
    release();
    await expect(page.locator('.nodes [data-latency="testing"]')).toHaveCount(0);
    await expect(page.locator('.nodes [data-latency="good"]')).toHaveCount(5);
    // The choice of order is kept for the next visit.
    await page.reload();
    await expect(page.getByLabel("Sort")).toHaveValue("latency");
  });

  test("connections: the chain names the subscription, a row opens its details, and Start waits while the core runs", async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/dashboard");
    const start = page
      .getByRole("group", { name: "Core service" })
      .getByRole("button", { name: "Start", exact: true });
    await expect(page.getByTestId("core-state")).toHaveText("Stopped");
    await expect(start).toBeEnabled();

    // A rule sends `localhost` through the proxy, to a node of Provider A chosen by hand.
    const mixedPort = await freePort();
    const settings = await callOk<Record<string, unknown>>(page, "GET", "/settings");
    await callOk(page, "PUT", "/settings", { ...settings, mixedPort });
    await callOk(page, "POST", "/rules", {
      type: "DOMAIN",
      value: "localhost",
      action: "PROXY",
      enabled: true,
    });
    // Provider A comes from the subscription test; made here when this test runs alone.
    const subs = await callOk<Array<{ name: string }>>(page, "GET", "/subscriptions");
    if (!subs.some((x) => x.name === "Provider A")) {
      const made = await callOk<{ id: string }>(page, "POST", "/subscriptions", {
        name: "Provider A",
        url: svc.feedUrl,
      });
      await callOk(page, "POST", `/subscriptions/${made.id}/refresh`);
    }
    const nodes = await callOk<Array<{ id: string; name: string }>>(page, "GET", "/nodes");
    const hk = nodes.find((n) => n.name.endsWith("Hong Kong 01"));
    expect(hk).toBeDefined();
    await callOk(page, "POST", "/nodes/select", { mode: "manual", id: hk?.id });

    await start.click();
    await expect(page.getByText("The core was started.")).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("core-state")).toHaveText("Online", { timeout: 15_000 });
    await expect(start).toBeDisabled();
    await expect(
      page.getByRole("group", { name: "Core service" }).getByRole("button", { name: "Stop" }),
    ).toBeEnabled();
    await expect(page.getByTestId("actual-node")).toContainText("Hong Kong 01 · Provider A", {
      timeout: 15_000,
    });
    await expect(page.getByTestId("actual-node")).not.toContainText(RAW_ID);
    await shoot(page, "dashboard-running");

    await page.getByRole("link", { name: "Connections" }).click();
    // An echo server that keeps the connection open until it is closed from the console.
    const echo = net.createServer((s) => {
      s.on("error", () => undefined);
      s.pipe(s);
    });
    await new Promise<void>((ok) => echo.listen(0, "127.0.0.1", ok));
    const target = (echo.address() as net.AddressInfo).port;
    const sock = await openTunnel(mixedPort, target, "localhost");
    sock.on("error", () => undefined);
    const ended = new Promise<void>((ok) => sock.once("close", () => ok()));
    const open = page.getByRole("button", {
      name: `Details of the connection to localhost:${target}`,
    });
    await expect(open).toBeVisible({ timeout: 15_000 });
    // Once the core lists it, a line goes through and comes back.
    sock.write("hello through the node\n");
    const table = page.getByRole("table", { name: "Live connections" });
    // The console's own group is said in words; the node keeps its name.
    await expect(table).toContainText("Proxy → 🇭🇰 Hong Kong 01 (Provider A)");
    expect(await table.innerText()).not.toMatch(RAW_ID);

    await open.click();
    const panel = page.getByRole("dialog", { name: "Connection details" });
    await expect(panel).toBeVisible();
    await expect(panel).toContainText(`localhost:${target}`);
    const chain = panel.getByRole("list", { name: "Chain" });
    await expect(chain.getByRole("listitem")).toHaveText([
      "Proxy",
      "🇭🇰 Hong Kong 01 from Provider A",
    ]);
    await expect(panel).toContainText("RuleExact domain localhost");
    await expect(panel).toContainText("Source address127.0.0.1");
    await expect(panel).toContainText("Started");
    // The line sent through the tunnel, and its echo.
    await expect(panel).toContainText("Up23 B");
    await expect(panel).toContainText("Down23 B");
    expect(await panel.innerText()).not.toMatch(RAW_ID);
    await page.keyboard.press("Escape");
    await expect(panel).toBeHidden();
    await expect(open).toBeFocused();
    // The same panel in either language.
    const anyPanel = page.locator("aside.conn-details");
    const details = {
      open: async () => {
        await page.locator(".conn-open").first().click();
        await expect(anyPanel).toBeVisible();
      },
      close: async () => {
        await anyPanel.locator(".conn-details-head button").click();
        await expect(anyPanel).toBeHidden();
      },
    };
    await shoot(page, "connection-details", details);

    // On a phone the panel takes the whole width and closes the same way.
    await page.setViewportSize(PHONE);
    await details.open();
    const box = await anyPanel.boundingBox();
    expect(box?.width).toBe(PHONE.width);
    await details.close();
    await shoot(page, "connection-details", details);
    await page.setViewportSize(DESKTOP);

    // From the panel the connection is closed; the panel then says it has ended.
    await open.click();
    await panel.getByRole("button", { name: "Close this connection" }).click();
    await ended;
    await expect(
      panel.getByText("This connection has ended; these are its last figures."),
    ).toBeVisible({ timeout: 15_000 });
    await page.keyboard.press("Escape");
    await expect(panel).toBeHidden();
    echo.close();
  });

  test("settings name a chosen node its subscription no longer offers by its name, not its id", async ({
    page,
  }) => {
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/dashboard");
    const sub = "2f00b452053b30d98c0a41c9";
    const settings = await callOk<Record<string, unknown>>(page, "GET", "/settings");
    await callOk(page, "PUT", "/settings", {
      ...settings,
      selectionMode: "manual",
      selectedNode: `${sub}/sub-${sub}/🇯🇵 Gone Tokyo`,
    });
    await page.getByRole("link", { name: "Settings" }).click();
    const select = page.getByLabel("Manually chosen node");
    await expect(select.locator("option:checked")).toHaveText(
      "🇯🇵 Gone Tokyo (no longer offered by its subscription)",
    );
    expect(await select.locator("option:checked").innerText()).not.toMatch(RAW_ID);
  });
});
