import {
  expect,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from "@playwright/test";
import { CookieJar, type Reply } from "../../helpers/parcel-harness.js";
import type { ParcelSite } from "./parcel-harness.js";
import { VIEWPORTS, type Size } from "./shots.js";

/** Steps of the parcel pages' browser specs that every one of them takes the same way. */

export type Lang = "en" | "zh-CN";

/**
 * A context of its own at `size` (a phone has touch and is mobile) whose parcel pages open in
 * `lang`: stored where the page keeps the reader's choice, before any page loads. `options`
 * adds to the context's (downloads, say).
 */
export async function openParcelContext(
  browser: Browser,
  size: Size,
  lang: Lang,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: VIEWPORTS[size],
    isMobile: size === "phone",
    hasTouch: size === "phone",
    ...options,
  });
  await context.addInitScript((l) => localStorage.setItem("gatehouse.parcel.lang", l), lang);
  return context;
}

/** A page of a new `openParcelContext`. */
export async function openParcelPage(browser: Browser, size: Size, lang: Lang): Promise<Page> {
  return (await openParcelContext(browser, size, lang)).newPage();
}

const SIGN_IN = {
  en: {
    username: "Username",
    password: "Password",
    signIn: "Sign in",
    heading: "Parcel administration",
  },
  "zh-CN": { username: "用户名", password: "密码", signIn: "登录", heading: "包裹管理" },
} as const;

/**
 * Signs in to the parcel admin console on `tab` (`#/admin/<tab>`) and waits for its heading;
 * `lang` is the language the page shows (English unless it was opened in another).
 */
export async function signInAdmin(
  page: Page,
  site: ParcelSite,
  tab: string,
  lang: Lang = "en",
): Promise<void> {
  const w = SIGN_IN[lang];
  await page.goto(`${site.url}/#/admin/${tab}`);
  await page.getByLabel(w.username).fill(site.adminUser);
  await page.getByLabel(w.password, { exact: true }).fill(site.adminPassword);
  await page.getByRole("button", { name: w.signIn }).click();
  await expect(page.getByRole("heading", { name: w.heading })).toBeVisible();
}

/** The test's own administrator session on the service (beside any page's), over the API. */
export interface AdminApi {
  jar: CookieJar;
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  /** A call that must answer 200 (it throws with the answer otherwise); its body. */
  json<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** Signs the administrator in over the API (checked: 200) and gives the session. */
export async function adminApi(site: ParcelSite): Promise<AdminApi> {
  const jar = new CookieJar();
  const call = (method: string, path: string, body?: unknown) =>
    site.harness.request(method, path, { body, jar });
  const login = await call("POST", "/admin/login", {
    username: site.adminUser,
    password: site.adminPassword,
  });
  expect(login.status).toBe(200);
  return {
    jar,
    call,
    async json<T>(method: string, path: string, body?: unknown): Promise<T> {
      const r = await call(method, path, body);
      if (r.status !== 200) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
      return r.json as T;
    },
  };
}
