import { expect, test, type Page } from "@playwright/test";
import { PASSWORD, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import { setUp, signIn } from "./support/proxy-page.js";

let svc: ProxyConsole;

test.beforeAll(async () => {
  svc = await startProxyConsole();
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
});

/** Controls without a name a screen reader could announce. */
async function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("button, input, select, textarea, a[href]")]
      .filter((el) => {
        const labelled =
          el.getAttribute("aria-label") ||
          el.getAttribute("aria-labelledby") ||
          (el as HTMLInputElement).labels?.length ||
          el.textContent?.trim() ||
          el.getAttribute("placeholder");
        return !labelled;
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}

test.describe("proxy console forms", () => {
  test("every control on every screen has an accessible name", async ({ page }) => {
    await signIn(page, svc, "#/dashboard");
    for (const route of [
      "dashboard",
      "subscriptions",
      "nodes",
      "rules",
      "settings",
      "devices",
      "connections",
      "logs",
      "system",
    ]) {
      await page.goto(`${svc.url}/#/${route}`);
      await expect(page.locator("main h1")).toBeVisible();
      await page.waitForLoadState("networkidle").catch(() => undefined);
      expect(await unlabelled(page), route).toEqual([]);
      // The screen's heading is said once: no card under it is titled the same.
      const heading = await page.locator("main h1").innerText();
      expect(await page.locator("main .card h2").allInnerTexts(), route).not.toContain(heading);
    }
  });

  test("a subscription is edited and deleted; a failed refresh is reported in words", async ({
    page,
  }) => {
    svc.feeds.setRoute("/sub/broken", { status: 500, body: "upstream exploded" });
    await signIn(page, svc, "#/subscriptions");
    await page.getByRole("button", { name: "Add subscription" }).click();
    await page.getByLabel("Name").fill("Broken feed");
    await page.getByLabel("Subscription URL").fill(`${svc.feeds.url}/sub/broken`);
    await page.getByLabel("Refresh every (hours)").fill("999");
    await page.getByRole("button", { name: "Add and refresh" }).click();
    await expect(page.getByText("Enter a whole number of hours from 0 to 720.")).toBeVisible();
    await page.getByLabel("Refresh every (hours)").fill("0");
    await page.getByRole("button", { name: "Add and refresh" }).click();
    await expect(
      page.getByText(/Broken feed was added, but fetching its nodes failed: /),
    ).toBeVisible();
    const item = page.getByRole("listitem", { name: "Broken feed" });
    await expect(item.getByText(/Last refresh failed/)).toBeVisible();
    await expect(item.getByText(/manual refresh only/)).toBeVisible();

    await item.getByRole("button", { name: "Edit" }).click();
    await item.getByLabel("Name").fill("Renamed feed");
    await item.getByRole("button", { name: "Save" }).click();
    const renamed = page.getByRole("listitem", { name: "Renamed feed" });
    await expect(renamed).toBeVisible();
    await renamed.getByRole("button", { name: "Delete" }).click();
    await renamed.getByRole("button", { name: "Really delete" }).click();
    await expect(renamed).toHaveCount(0);
    await expect(page.getByText("No subscriptions yet.", { exact: false })).toBeVisible();
    const left = (await (
      await page.request.get(`${svc.url}/api/v1/subscriptions`)
    ).json()) as unknown[];
    expect(left).toEqual([]);
  });

  test("connectivity tests run at most three at a time and each gets a result line", async ({
    page,
  }) => {
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    // The first requests are held until the test has seen how many the page runs at once.
    let holding = true;
    const held: Array<() => void> = [];
    await page.route("**/api/v1/system/connectivity/test", async (route) => {
      calls++;
      inFlight++;
      most = Math.max(most, inFlight);
      if (holding) await new Promise<void>((release) => held.push(release));
      inFlight--;
      const { siteId } = route.request().postDataJSON() as { siteId: string };
      if (siteId === "openai")
        return route.fulfill({
          status: 429,
          json: { error: "Three connectivity tests are already running" },
        });
      await route.fulfill({
        json: {
          status: siteId === "google" ? "timeout" : "ok",
          detail: "",
          code: siteId === "google" ? "connectivity.timeout" : "connectivity.answered",
          httpStatus: siteId === "google" ? 0 : 204,
          durationMS: 42,
          tlsVerified: true,
          checkedAt: new Date().toISOString(),
        },
      });
    });
    await signIn(page, svc, "#/system");
    await page.getByRole("button", { name: "Test all" }).click();
    // While the first answers are held: three requests in flight, the page says three run and
    // six wait (it marks a test running as it sends it, so a fourth would show here).
    await expect.poll(() => inFlight).toBe(3);
    const lines = page.locator('[data-testid^="site-"]');
    await expect(lines.filter({ hasText: /^testing…$/ })).toHaveCount(3);
    await expect(lines.filter({ hasText: /^waiting…$/ })).toHaveCount(6);
    expect(calls).toBe(3);
    holding = false;
    for (const release of held.splice(0)) release();
    await expect(page.getByTestId("site-bilibili")).toHaveText(
      /reachable · 42 ms · answered HTTP 204 · certificate valid/,
    );
    await expect(page.getByTestId("site-google")).toHaveText(/timed out/);
    await expect(page.getByTestId("site-openai")).toHaveText(
      "Three connectivity tests are already running",
    );
    expect(calls).toBe(9);
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBeGreaterThan(1);
  });

  test("the password is changed only with the current one, and other sessions end", async ({
    page,
    browser,
  }) => {
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await signIn(otherPage, svc, "");

    await signIn(page, svc, "#/system");
    const form = page.getByRole("region", { name: "Administrator password" });
    await form.getByLabel("Current password").fill("not the password");
    await form.getByLabel("New password").fill("a brand new passphrase");
    await form.getByLabel("Repeat the password").fill("a brand new passphrase");
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByRole("alert")).toHaveText("The current password is wrong.");
    await form.getByLabel("Current password").fill(PASSWORD);
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByText("Password changed. Other sessions were signed out.")).toBeVisible();

    // This session keeps working with its new CSRF token; the other one is sent to the login form.
    await page.getByRole("button", { name: "Download backup" }).click();
    await expect(page.getByText("The backup was downloaded.")).toBeVisible();
    await otherPage.goto(`${svc.url}/#/rules`);
    await expect(otherPage.getByRole("button", { name: "Sign in" })).toBeVisible();
    await other.close();

    // Put the password back for the other tests.
    await form.getByLabel("Current password").fill("a brand new passphrase");
    await form.getByLabel("New password").fill(PASSWORD);
    await form.getByLabel("Repeat the password").fill(PASSWORD);
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByText("Password changed. Other sessions were signed out.")).toBeVisible();
  });

  test("in the desktop app the setup page never asks the bridge for the token, and says where it is", async ({
    page,
  }) => {
    const fresh = await startProxyConsole();
    try {
      // What the preload exposes as \`window.gatehouse\`: the setup token is the app page's alone
      // (the LAN loads this page too), so this page must never ask for it.
      await page.addInitScript(() => {
        const none = () => Promise.reject(new Error("not in this test"));
        const w = window as unknown as { asked: number };
        w.asked = 0;
        Object.defineProperty(window, "gatehouse", {
          value: {
            app: { info: none, onServiceStatus: () => () => undefined, openExternal: none },
            tokens: { save: none, remove: none, list: none },
            proxy: {
              setupToken: () => {
                w.asked++;
                return none();
              },
            },
          },
        });
      });
      await page.goto(fresh.url);
      await expect(page.getByText(/Desktop screen/)).toBeVisible();
      await page.getByLabel("Setup token").fill(fresh.token);
      await page.getByLabel("New password").fill(PASSWORD);
      await page.getByLabel("Repeat the password").fill(PASSWORD);
      await page.getByRole("button", { name: "Set password and sign in" }).click();
      await expect(page.getByRole("heading", { name: "Dashboard", level: 1 })).toBeVisible();
      expect(await page.evaluate(() => (window as unknown as { asked: number }).asked)).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
