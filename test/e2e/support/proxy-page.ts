import { expect, type Page } from "@playwright/test";
import { PASSWORD, type ProxyConsole } from "./proxy-harness.js";
import { shootView } from "./proxy-shots.js";
import { editJson } from "./routes.js";
import { atBothSizes, DESKTOP, shotsWanted } from "./shots.js";

export { DESKTOP, PHONE } from "./shots.js";

/** Steps of the proxy console's browser specs that every one of them takes the same way. */

/** Sets the console up over HTTP with the harness's token and password. */
export async function setUp(svc: ProxyConsole): Promise<void> {
  const res = await fetch(`${svc.url}/api/v1/auth/setup`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: svc.token, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
}

/** Opens the console's page at `hash` and sends the sign-in form, waiting for nothing after. */
export async function submitSignIn(page: Page, svc: ProxyConsole, hash: string): Promise<void> {
  await page.goto(`${svc.url}/${hash}`);
  await page.getByLabel(/^(Password|密码)$/).fill(PASSWORD);
  await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
}

/** Signs in on the console's own page and waits for its menu. */
export async function signIn(page: Page, svc: ProxyConsole, hash: string): Promise<void> {
  await submitSignIn(page, svc, hash);
  await expect(page.locator("nav#console-nav")).toBeAttached();
}

/** Picks the language from the header (behind the folded menu on phones). */
export async function setLang(page: Page, lang: "en" | "zh-CN"): Promise<void> {
  const menu = page.locator(".menu-button");
  const picker = page.locator("#lang-pick");
  // The sign-in page has no menu: its picker is in the bar. The console folds its menu at
  // 760 px and below, but only once React has seen the change of width: until then the old
  // layout's picker is still there, and a pick started on it is lost when it goes (a
  // fresh-clone run waited 100 s on a picker folded away that way). So wait for the layout
  // that fits the width first.
  await expect(picker).toBeAttached();
  const inConsole = (await page.locator("nav#console-nav").count()) > 0;
  const phone = inConsole && (page.viewportSize()?.width ?? DESKTOP.width) <= 760;
  if (phone) await expect(menu).toBeVisible();
  else if (inConsole) await expect(menu).toHaveCount(0);
  if (phone) {
    // The menu closes itself when the console sees a change of width, which may land just
    // after a click that opened it; open it again until the picker answers.
    await expect(async () => {
      if (!(await picker.isVisible())) await menu.click();
      await picker.selectOption(lang, { timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await page.keyboard.press("Escape");
  } else await picker.selectOption(lang);
  await expect(page.locator("html")).toHaveAttribute("lang", lang);
}

/** What a call of the console's API from the page answered. */
export interface PageAnswer<T> {
  status: number;
  json: T;
  /** The `X-Gatehouse-Probation` header (a settings change waiting for confirmation). */
  probation: string | null;
}

/** Calls the console's API from the page, with its session cookie and CSRF token. */
export async function callInPage<T = unknown>(
  page: Page,
  method: string,
  path: string,
  data?: unknown,
): Promise<PageAnswer<T>> {
  return page.evaluate(
    async ([m, p, body]) => {
      const auth = (await (await fetch("/api/v1/auth/status")).json()) as { csrf: string };
      const res = await fetch(`/api/v1${p}`, {
        method: m,
        headers: { "Content-Type": "application/json", "X-CSRF-Token": auth.csrf },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        json: (text ? JSON.parse(text) : null) as T,
        probation: res.headers.get("X-Gatehouse-Probation"),
      };
    },
    [method, path, data] as const,
  );
}

/**
 * `callInPage` for a call that must succeed: fails the test on any other status than 200 (with
 * what the service answered), and gives the answer's body.
 */
export async function callOk<T = unknown>(
  page: Page,
  method: string,
  path: string,
  data?: unknown,
): Promise<T> {
  const answer = await callInPage<T>(page, method, path, data);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.json)}`).toBe(200);
  return answer.json;
}

/**
 * Shots of what is on screen in both languages and both themes, at both sizes (a laptop and a
 * phone), saved as `artifacts/screenshots/proxy-<name>-<width>-<lang>-<scheme>.png`. `before`
 * runs after each switch (to open a panel or scroll to the part looked at); the page ends in
 * English, light, at the laptop size.
 */
export async function shootEverywhere(
  page: Page,
  name: string,
  options: { fullPage?: boolean; before?: () => Promise<void> } = {},
): Promise<void> {
  if (!shotsWanted()) {
    // No picture to take: only where the page is left.
    await page.setViewportSize(DESKTOP);
    await setLang(page, "en");
    return;
  }
  await atBothSizes(page, async () => {
    for (const lang of ["en", "zh-CN"] as const) {
      await setLang(page, lang);
      await options.before?.();
      await shootView(page, name, { fullPage: options.fullPage });
    }
  });
  await setLang(page, "en");
}

/**
 * For specs that stand in for the core's answers (`page.route` of `/nodes/test`): the page's
 * `/status` says a core runs, so the latency buttons (which wait for a core) are offered.
 */
export async function seeCoreRunning(page: Page): Promise<void> {
  await editJson<Record<string, unknown>>(page, "**/api/v1/status", (json) => ({
    ...json,
    coreOnline: true,
    coreStarted: true,
  }));
}
