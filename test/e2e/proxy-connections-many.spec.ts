import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import { callInPage, DESKTOP, PHONE, setLang, setUp, signIn } from "./support/proxy-page.js";
import { shootView } from "./support/proxy-shots.js";

/**
 * The connections page with a few thousand live connections from the simulated core, each
 * moving bytes every second: the page's worker asks the service, searches and orders the
 * list, and the page shows the counts, the rows in view and their changing figures.
 */

const COUNT = 3000;
/** How often the connections page's worker asks while the tab is shown. */
const POLL_EVERY_MS = 1000;

interface Listed {
  id: string;
  download: number;
  metadata: { host?: string; destinationPort?: string };
}

let svc: ProxyConsole;
let controllerPort = 0;

/** Asks the simulated core to list `count` connections that stay (no churn) and move bytes. */
async function crowd(count: number): Promise<void> {
  const secret = readFileSync(join(svc.dataDir, "proxy", "core", "secret"), "utf8").trim();
  const r = await fetch(`http://127.0.0.1:${controllerPort}/__sim/connections/bulk`, {
    method: "POST",
    headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
    body: JSON.stringify({ count, churn: false }),
  });
  expect(r.status).toBe(200);
}

/** The connections as the service lists them now. */
async function listed(page: Page): Promise<Listed[]> {
  const r = await callInPage<{ connections: Listed[] | null }>(page, "GET", "/connections");
  expect(r.status).toBe(200);
  return r.json.connections ?? [];
}

const hostOf = (c: Listed) => `${c.metadata.host}:${c.metadata.destinationPort}`;

/** The destinations of the rows drawn, top to bottom. */
async function shownHosts(page: Page): Promise<string[]> {
  return page.locator(".conn-table .vrow .conn-open").allInnerTexts();
}

async function shoot(page: Page, name: string): Promise<void> {
  await shootView(page, `connections-many-${name}`);
}

test.beforeAll(async () => {
  controllerPort = await freePort();
  svc = await startProxyConsole({ controllerPort });
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
});

test("a few thousand live connections: counts, search, order, moving bytes, details and closing", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/dashboard");
  // The core's proxy port: a free one (other specs run beside this one).
  const settings = await callInPage<Record<string, unknown>>(page, "GET", "/settings");
  const mixedPort = await freePort();
  const saved = await callInPage(page, "PUT", "/settings", { ...settings.json, mixedPort });
  expect(saved.status).toBe(200);
  expect((await callInPage(page, "POST", "/system/service", { action: "start" })).status).toBe(200);
  await crowd(COUNT);
  await page.getByRole("link", { name: "Connections" }).click();
  const count = page.getByTestId("conn-count");
  await expect(count).toHaveText(`${COUNT} of ${COUNT}`, { timeout: 20_000 });
  const rows = page.locator(".conn-table .vrow");
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeLessThan(80);
  await expect(page.getByRole("columnheader", { name: /Age/ })).toHaveAttribute(
    "aria-sort",
    "descending",
  );

  // The figures move: the totals, and rows' bytes, change from one second to the next.
  const totals = page.getByText(/^Uploaded .* since the core started\.$/);
  const before = await totals.innerText();
  const downs = () => rows.locator(".c-down").allInnerTexts();
  const firstDowns = await downs();
  await expect(totals).not.toHaveText(before, { timeout: 10_000 });
  await expect.poll(downs, { timeout: 10_000 }).not.toEqual(firstDowns);

  // Ordered by destination, both ways, over the whole list (not only the rows in view).
  const hosts = (await listed(page)).map(hostOf);
  const lower = (h: string) => h.toLowerCase();
  const asc = [...hosts].sort((a, b) => (lower(a) < lower(b) ? -1 : lower(a) > lower(b) ? 1 : 0));
  const destination = page.getByRole("button", { name: /^Destination/ });
  await destination.click();
  await expect(page.getByRole("columnheader", { name: /Destination/ })).toHaveAttribute(
    "aria-sort",
    "ascending",
  );
  await expect.poll(() => shownHosts(page).then((h) => h.slice(0, 5))).toEqual(asc.slice(0, 5));
  await destination.click();
  await expect(page.getByRole("columnheader", { name: /Destination/ })).toHaveAttribute(
    "aria-sort",
    "descending",
  );
  const desc = [...asc].reverse();
  await expect.poll(() => shownHosts(page).then((h) => h.slice(0, 5))).toEqual(desc.slice(0, 5));
  // Scrolled to the end: the last rows of the order are drawn there.
  const list = page.getByRole("rowgroup", { name: "Connection rows" });
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect
    .poll(() => shownHosts(page).then((h) => h.slice(-3)))
    .toEqual(asc.slice(0, 3).reverse());
  await list.evaluate((el) => (el.scrollTop = 0));
  await shoot(page, "sorted");

  // A search counts what it matches in the whole list.
  const wanted = hosts.filter((h) => h.includes("h123."));
  expect(wanted.length).toBeGreaterThan(0);
  const search = page.getByPlaceholder("Search host, source, rule, chain");
  await search.fill("h123.");
  await expect(count).toHaveText(`${wanted.length} of ${COUNT}`);
  expect((await shownHosts(page)).sort()).toEqual([...wanted].sort());
  await shoot(page, "search");

  // A row's details follow its figures; Escape goes back to the row.
  const open = page.locator(".conn-table .conn-open").first();
  const picked = await open.innerText();
  await open.click();
  const panel = page.getByRole("dialog", { name: "Connection details" });
  await expect(panel).toContainText(picked);
  const down = panel.locator("dt", { hasText: /^Down$/ }).locator("xpath=following-sibling::dd");
  const firstDown = await down.innerText();
  await expect(down).not.toHaveText(firstDown, { timeout: 10_000 });
  await shoot(page, "details");
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
  await expect(
    page.getByRole("button", { name: `Details of the connection to ${picked}` }),
  ).toBeFocused();

  // A hidden tab asks nothing; shown again, it asks at once.
  const asked: number[] = [];
  page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/v1/connections") asked.push(Date.now());
  });
  const visibility = (state: "hidden" | "visible") =>
    page.evaluate((s) => {
      Object.defineProperty(document, "visibilityState", { value: s, configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
    }, state);
  await visibility("hidden");
  const quiet = asked.length;
  // The worker asks one request at a time, once a second while shown: the one already on its
  // way when the tab hid may still be seen, none after it. This window is for something that
  // must not happen, so no event can end it; two and a half periods would see two more.
  await page.waitForTimeout(2.5 * POLL_EVERY_MS);
  const whileHidden = asked.length;
  expect(whileHidden - quiet).toBeLessThanOrEqual(1);
  await visibility("visible");
  await expect.poll(() => asked.length).toBeGreaterThan(whileHidden);

  // Closing one counts it gone; closing all empties the table.
  await page.getByRole("button", { name: `Close the connection to ${picked}` }).click();
  await expect(count).toHaveText(`${wanted.length - 1} of ${COUNT - 1}`);
  await search.fill("");
  await expect(count).toHaveText(`${COUNT - 1} of ${COUNT - 1}`);

  // In Chinese, on a phone: cards, and the same counts.
  await setLang(page, "zh-CN");
  await expect(count).toHaveText(`${COUNT - 1} / ${COUNT - 1}`);
  await shoot(page, "desktop");
  await page.setViewportSize(PHONE);
  await expect(page.locator(".conn-table.conn-cards .vrow").first()).toBeVisible();
  await shoot(page, "cards");
  await setLang(page, "en");
  await shoot(page, "cards");
  await page.setViewportSize(DESKTOP);

  await page.getByRole("button", { name: "Close all" }).click();
  await expect(page.getByText("All connections were closed.")).toBeVisible();
  await expect(count).toHaveText("0 of 0");
  await expect(page.getByText("No active connections.")).toBeVisible();

  // The session ends: the worker's next request answers 401 (only that request, so no other
  // part of the page notices first) and the page goes back to the sign-in form.
  await page.route("**/api/v1/connections", (route) =>
    route.fulfill({ status: 401, json: { error: "Sign in first", code: "auth.sign_in" } }),
  );
  await expect(page.getByText("Your session has ended. Sign in again.")).toBeVisible();
  await expect(page.getByLabel("Password")).toBeVisible();
});
