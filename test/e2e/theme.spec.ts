import { expect, test, type Page } from "@playwright/test";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import { setUp, signIn } from "./support/proxy-page.js";

/**
 * Every page follows the system's light or dark theme, live, and a theme chosen by hand holds
 * against it: the pickup page, the parcel administration's sign-in and the proxy console. Not
 * only the `data-theme` attribute: the page's colours change with it.
 */
let parcel: ParcelSite;
let proxy: ProxyConsole;

test.beforeAll(async () => {
  parcel = await startParcelSite();
  proxy = await startProxyConsole();
  await setUp(proxy);
});
test.afterAll(async () => {
  await parcel?.close();
  await proxy?.close();
});

/** The theme the page says it shows, and the colours it is painted in (ground and text). */
async function look(page: Page): Promise<{ theme: string | undefined; background: string }> {
  return page.evaluate(() => {
    const ground = [document.documentElement, document.body]
      .map((el) => getComputedStyle(el).backgroundColor)
      .find((c) => c !== "rgba(0, 0, 0, 0)");
    return {
      theme: document.documentElement.dataset.theme,
      background: `${ground ?? "none"} / ${getComputedStyle(document.body).color}`,
    };
  });
}

/** Light, then dark, then light again, each followed at once without a reload. */
async function followsTheSystem(page: Page, where: string): Promise<void> {
  await page.emulateMedia({ colorScheme: "light" });
  await expect.poll(async () => (await look(page)).theme, where).toBe("light");
  const light = (await look(page)).background;
  await page.emulateMedia({ colorScheme: "dark" });
  await expect.poll(async () => (await look(page)).theme, where).toBe("dark");
  const dark = (await look(page)).background;
  expect(dark, `${where}: the dark page is painted in other colours`).not.toBe(light);
  await page.emulateMedia({ colorScheme: "light" });
  await expect.poll(async () => (await look(page)).background, where).toBe(light);
}

test("the parcel pages and the proxy console follow the system's theme; one chosen by hand holds", async ({
  page,
}) => {
  await page.goto(`${parcel.url}/`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await followsTheSystem(page, "pickup page");

  // The parcel pages' own picker: Dark holds in a light system, and after a reload.
  await page.getByLabel("Theme").selectOption("dark");
  await expect.poll(async () => (await look(page)).theme).toBe("dark");
  await page.reload();
  await expect.poll(async () => (await look(page)).theme).toBe("dark");
  await page.getByLabel("Theme").selectOption("system");

  await page.goto(`${parcel.url}/#/admin/stats`);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await followsTheSystem(page, "parcel administration");

  await page.goto(`${proxy.url}/`);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await followsTheSystem(page, "proxy console's sign-in");
  await signIn(page, proxy, "#/dashboard");
  await followsTheSystem(page, "proxy console");

  // Light chosen by hand stays light when the system turns dark.
  await page.getByLabel("Theme").selectOption("light");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect.poll(async () => (await look(page)).theme).toBe("light");
  await page.getByLabel("Theme").selectOption("system");
  await expect.poll(async () => (await look(page)).theme).toBe("dark");
});
