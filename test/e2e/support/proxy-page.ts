import { expect, type Page } from "@playwright/test";
import { PASSWORD, type ProxyConsole } from "./proxy-harness.js";

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

/** Signs in on the console's own page and waits for its menu. */
export async function signIn(page: Page, svc: ProxyConsole, hash: string): Promise<void> {
  await page.goto(`${svc.url}/${hash}`);
  await page.getByLabel(/^(Password|密码)$/).fill(PASSWORD);
  await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
  await expect(page.locator("nav#console-nav")).toBeAttached();
}

/** Picks the language from the header (behind the folded menu on phones). */
export async function setLang(page: Page, lang: "en" | "zh-CN"): Promise<void> {
  const menu = page.locator(".menu-button");
  const phone = await menu.isVisible();
  if (phone) await menu.click();
  await page.locator("#lang-pick").selectOption(lang);
  if (phone) await page.keyboard.press("Escape");
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
