import { expect, test, type Locator, type Page } from "@playwright/test";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import { callOk, PHONE, setLang, setUp, signIn } from "./support/proxy-page.js";
import { shootView } from "./support/proxy-shots.js";

/**
 * What a new user met on a phone and in the words: log lines that could not be read, a
 * connections table running off the right edge, a restore that replaced everything without
 * asking, and the core's rule keywords shown raw in both languages.
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

/** Light and dark of the phone screen, which must be in `lang` already. */
async function shot(page: Page, name: string, lang: "en" | "zh-CN"): Promise<void> {
  await expect(page.locator("html")).toHaveAttribute("lang", lang);
  await shootView(page, `leftovers-${name}`);
}

/** The element's box lies inside the phone's width, and it is not hidden. */
async function expectOnScreen(el: Locator): Promise<void> {
  await expect(el).toBeVisible();
  const box = await el.boundingBox();
  expect(box, "a box").not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
}

const LONG_LINE =
  "[TCP] 192.168.1.50:53124 --> very-long-subdomain.images.example-content-delivery.net:443 " +
  "match DomainSuffix(example-content-delivery.net) using PROXY[Tokyo 01] after 3 retries";

interface Rule {
  id: string;
  type: string;
  value: string;
  action: string;
}

test.describe("proxy console leftovers of a new user's first hour", () => {
  test("phone: a log line cut in its row is read whole after a tap, in both languages", async ({
    browser,
  }) => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const events = [
      { type: "info", payload: LONG_LINE },
      { type: "warning", payload: "dial tcp 203.0.113.9:443: i/o timeout" },
    ]
      .map((d) => `event: log\ndata: ${JSON.stringify(d)}\n\n`)
      .join("");
    await page.route("**/api/v1/logs**", (route) =>
      route.fulfill({
        status: 200,
        headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" },
        body: events,
      }),
    );
    await signIn(page, svc, "#/logs");
    const row = page.getByRole("button", { name: LONG_LINE });
    await expect(row).toBeVisible();
    // In its row the line is cut (that is why it can be opened) ...
    expect(await row.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await expect(page.getByText("Tap or click a line to read it whole.")).toBeVisible();
    await row.click();
    // ... and opened it is whole, wrapped inside the screen.
    const whole = page.getByRole("region", { name: "The whole line" });
    await expect(whole).toContainText(LONG_LINE);
    await expectOnScreen(whole);
    const text = whole.locator(".log-whole-text");
    expect(await text.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect((await text.boundingBox())!.height).toBeGreaterThan(40);
    await shot(page, "logs-whole", "en");
    await setLang(page, "zh-CN");
    await expect(page.getByRole("region", { name: "完整的一行" })).toContainText(LONG_LINE);
    await expect(page.getByText("点按一行即可查看完整内容。")).toBeVisible();
    await shot(page, "logs-whole", "zh-CN");
    await page.getByRole("button", { name: "收起" }).click();
    await expect(page.getByRole("region", { name: "完整的一行" })).toHaveCount(0);
    await context.close();
  });

  test("phone: each connection is a card whose destination, chain, rule and traffic stay on screen", async ({
    browser,
  }) => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const start = new Date(Date.now() - 95_000).toISOString();
    await page.route("**/api/v1/connections**", (route) =>
      route.fulfill({
        json: {
          uploadTotal: 2048,
          downloadTotal: 1_500_000,
          connections: [1, 2, 3].map((i) => ({
            id: `c${i}`,
            metadata: {
              network: "tcp",
              type: "HTTP",
              sourceIP: "192.168.1.50",
              destinationIP: "203.0.113.9",
              sourcePort: "5000" + i,
              destinationPort: "443",
              host: `cdn-${i}.images.example-content-delivery.net`,
            },
            upload: 1024 * i,
            download: 512_000 * i,
            start,
            chains: ["Tokyo 01", "PROXY"],
            rule: "DomainSuffix",
            rulePayload: "example-content-delivery.net",
          })),
        },
      }),
    );
    await signIn(page, svc, "#/connections");
    const card = page.locator(".conn-table .vrow").filter({ hasText: "cdn-1." });
    await expect(card).toBeVisible();
    // Found by what a person sees, not by class: the destination and its Close button.
    await expectOnScreen(
      page.getByRole("button", {
        name: "Details of the connection to cdn-1.images.example-content-delivery.net:443",
      }),
    );
    await expectOnScreen(
      page.getByRole("button", {
        name: "Close the connection to cdn-1.images.example-content-delivery.net:443",
      }),
    );
    for (const cell of [".c-host", ".c-chain", ".c-rule", ".c-up", ".c-down", ".c-close"])
      await expectOnScreen(card.locator(cell));
    await expect(card.locator(".c-host")).toContainText("cdn-1.images");
    // The core's rule type in words; its own name stays in the tooltip.
    await expect(card.locator(".c-rule")).toContainText("Domain and subdomains");
    await expect(card.locator(".c-rule")).toHaveAttribute("title", /^DomainSuffix /);
    await expect(card.locator(".c-down")).toContainText("500");
    // Nothing of the list is hidden to the right.
    const table = page.locator(".conn-table");
    expect(await table.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    // Still sortable: the column names are buttons that wrap above the cards.
    await expectOnScreen(page.getByRole("button", { name: /^Age/ }));
    await shot(page, "connections-cards", "en");
    await setLang(page, "zh-CN");
    await expect(card.locator(".c-rule")).toContainText("规则");
    await expect(card.locator(".c-rule")).toContainText("域名及子域名");
    await expect(card.locator(".c-rule")).not.toContainText("DomainSuffix");
    await expectOnScreen(card.locator(".c-close"));
    await shot(page, "connections-cards", "zh-CN");
    await context.close();
  });

  test("restoring a backup file asks first; Cancel changes nothing; one notice at a time", async ({
    browser,
  }) => {
    const context = await browser.newContext({ viewport: PHONE, acceptDownloads: true });
    const page = await context.newPage();
    await signIn(page, svc, "#/system");
    const added = await callOk<Rule>(page, "POST", "/rules", {
      type: "DOMAIN",
      value: "kept.example",
      action: "PROXY",
      enabled: true,
    });
    const backup = await (await page.request.get(`${svc.url}/api/v1/system/backup`)).text();
    const file = join(tmpdir(), `gatehouse-leftovers-${process.pid}.json`);
    writeFileSync(file, backup);
    expect(JSON.parse(readFileSync(file, "utf8"))).toHaveProperty("state");
    await callOk(page, "DELETE", `/rules/${added.id}`);

    const downloading = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download backup" }).click();
    await downloading;
    await expect(page.getByText("The backup was downloaded.")).toBeVisible();

    const name = file.split("/").pop()!;
    await page.getByTestId("restore-input").setInputFiles(file);
    const ask = page.getByRole("group", { name: "Restore this backup?" });
    await expect(ask).toContainText(
      new RegExp(
        `^Restore ${name}, the backup of .+: the settings, \\d+ subscriptions? and 1 rule\\? Everything the console holds now is replaced\\.`,
      ),
    );
    // The earlier notice is gone once something else is under way.
    await expect(page.getByText("The backup was downloaded.")).toHaveCount(0);
    await ask.scrollIntoViewIfNeeded();
    await shot(page, "restore-ask", "en");
    await ask.getByRole("button", { name: "Cancel" }).click();
    await expect(
      page.getByText("Nothing was restored; your settings are as they were."),
    ).toBeVisible();
    expect((await callOk<{ custom: Rule[] }>(page, "GET", "/rules")).custom).toHaveLength(0);

    await setLang(page, "zh-CN");
    await page.getByTestId("restore-input").setInputFiles(file);
    const askZh = page.getByRole("group", { name: "恢复此备份？" });
    await expect(askZh).toContainText(
      new RegExp(
        `^恢复 ${name}（.+ 的备份）：设置、\\d+ 个订阅和 1 条规则？控制台现有的内容都会被替换。`,
      ),
    );
    await expect(page.getByText("未恢复任何内容，设置保持原样。")).toHaveCount(0);
    await askZh.scrollIntoViewIfNeeded();
    await shot(page, "restore-ask", "zh-CN");
    await askZh.getByRole("button", { name: "取消" }).click();
    await expect(page.getByText("未恢复任何内容，设置保持原样。")).toBeVisible();
    await setLang(page, "en");

    await page.getByRole("button", { name: "Download backup" }).click();
    await expect(page.getByText("The backup was downloaded.")).toBeVisible();
    await page.getByTestId("restore-input").setInputFiles(file);
    await page
      .getByRole("group", { name: "Restore this backup?" })
      .getByRole("button", { name: "Restore", exact: true })
      .click();
    await expect(page.getByText("The backup was restored.")).toBeVisible();
    await expect(page.getByText("The backup was downloaded.")).toHaveCount(0);
    const restored = (await callOk<{ custom: Rule[] }>(page, "GET", "/rules")).custom;
    expect(restored.map((r) => `${r.type} ${r.value}`)).toEqual(["DOMAIN kept.example"]);
    await callOk(page, "DELETE", `/rules/${restored[0].id}`);
    await context.close();
  });

  test("rule types and routes are said in words in both languages, the keyword kept small", async ({
    browser,
  }) => {
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    await signIn(page, svc, "#/rules");
    const form = page.getByRole("form", { name: "Add rule" });
    const type = form.getByLabel("Type");
    await expect(type.locator("option")).toHaveText([
      "Exact domain",
      "Domain and subdomains",
      "Address range",
    ]);
    await expect(form.getByLabel("Route").locator("option")).toHaveText([
      "Direct",
      "Through the proxy",
    ]);
    await type.selectOption("DOMAIN-SUFFIX");
    // The keyword stays in sight under the field, small.
    await expect(form.getByText("In the core's terms: DOMAIN-SUFFIX")).toBeVisible();
    await form.getByLabel("Domain or address range").fill("words.example");
    await form.getByLabel("Route").selectOption("PROXY");
    await form.getByRole("button", { name: "Add rule" }).click();
    const row = page.getByRole("listitem", { name: "DOMAIN-SUFFIX words.example" });
    await expect(row.locator(".rule-type")).toHaveText("Domain and subdomains DOMAIN-SUFFIX");
    await expect(row.locator(".keyword")).toHaveText("DOMAIN-SUFFIX");
    await expect(row.locator(".badge").first()).toHaveText("Through the proxy");
    await expect(row.locator(".badge").first()).toHaveAttribute("title", "PROXY");
    // The built-in rules say their routes in words too.
    const builtIn = page.locator(".default-rule").first();
    await expect(builtIn.locator("strong")).toHaveText("Direct");
    await row.scrollIntoViewIfNeeded();
    await shot(page, "rules-words", "en");

    await setLang(page, "zh-CN");
    await expect(row.locator(".rule-type")).toHaveText("域名及子域名 DOMAIN-SUFFIX");
    await expect(row.locator(".badge").first()).toHaveText("走代理");
    await expect(builtIn.locator("strong")).toHaveText("直连");
    await expect(
      page.getByRole("form", { name: "添加规则" }).locator("select").first().locator("option"),
    ).toHaveText(["精确域名", "域名及子域名", "地址段"]);
    await expect(page.getByText("内核写法：DOMAIN-SUFFIX")).toBeVisible();
    await row.scrollIntoViewIfNeeded();
    await shot(page, "rules-words", "zh-CN");
    await context.close();
  });
});
