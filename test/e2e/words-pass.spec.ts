import net, { type AddressInfo } from "node:net";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { freePort, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import { callInPage as call, DESKTOP, setLang, setUp, signIn } from "./support/proxy-page.js";
import { startParcelSite } from "./support/parcel-harness.js";
import { editJson } from "./support/routes.js";
import { shootBothThemes } from "./support/proxy-shots.js";
import { atBothSizesForShots } from "./support/shots.js";

/**
 * The last look over the console in Chinese: sentences about the core never carry the
 * core's English lines (they are folded apart under "内核输出"), and the core's built-in
 * keywords are said in words. Against the real proxy service and the fake core; the core's
 * refusals of a selection and of a refresh are the service's own answers for them (code,
 * params.detail), given to the page as the service sends them.
 */
let svc: ProxyConsole;

test.beforeAll(async () => {
  svc = await startProxyConsole();
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
});

/** Latin words left in a Chinese text once the values a person gave are taken out. */
async function englishWords(where: Locator, own: string[] = []): Promise<string[]> {
  let text = (await where.allInnerTexts()).join("\n");
  for (const value of own) text = text.replaceAll(value, "");
  return text.match(/[A-Za-z]{2,}/g) ?? [];
}

/** Both sizes, both themes. */
async function shoot(page: Page, name: string): Promise<void> {
  await atBothSizesForShots(page, (width) => shootBothThemes(page, `words-pass-${name}-${width}`));
}

/** The local feed's subscription with its nodes fetched (once per service). */
async function ensureSubscription(page: Page): Promise<void> {
  const list = await call<Array<{ name: string }>>(page, "GET", "/subscriptions");
  if (list.json.some((s) => s.name === "Home provider")) return;
  const sub = await call<{ id: string }>(page, "POST", "/subscriptions", {
    name: "Home provider",
    url: svc.feedUrl,
    intervalHours: 0,
    enabled: true,
  });
  expect(sub.status).toBe(200);
  expect((await call(page, "POST", `/subscriptions/${sub.json.id}/refresh`)).status).toBe(200);
}

test.describe.configure({ mode: "serial" });

test("the dashboard says in words that no node is in use, instead of the keyword REJECT", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/dashboard");
  await expect(page.getByTestId("core-state")).toBeVisible();
  // The fake core on free ports: the default 7890 and 1053 may be taken by other tests.
  const settings = await call<Record<string, unknown>>(page, "GET", "/settings");
  const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
  expect(settings.status, JSON.stringify(settings.json)).toBe(200);
  const put = await call(page, "PUT", "/settings", { ...settings.json, ...ports });
  expect(put.status, JSON.stringify(put.json)).toBe(200);
  expect((await call(page, "POST", "/system/service", { action: "start" })).status).toBe(200);
  await page.reload();
  await expect(page.getByTestId("core-state")).toHaveText("Online");
  const node = page.getByTestId("actual-node");
  await expect(node).toContainText("None: traffic meant for the proxy is blocked");
  await expect(node).not.toContainText("REJECT");
  await setLang(page, "zh-CN");
  await expect(node).toContainText("无：需要走代理的流量被拦截");
  expect(await englishWords(page.locator(".facts").first())).toEqual([]);
  await shoot(page, "dashboard-no-node-zh");
  await setLang(page, "en");
  // No subscription yet: the way to add one is beside the count.
  await expect(page.getByRole("link", { name: "Add a subscription" })).toHaveAttribute(
    "href",
    "#/subscriptions",
  );
  // With the proxy off no node is needed, and the node choice is not said as if it applied.
  const off = await call(page, "PUT", "/settings", {
    ...settings.json,
    ...ports,
    proxyEnabled: false,
  });
  expect(off.status, JSON.stringify(off.json)).toBe(200);
  if (off.probation) {
    expect((await call(page, "POST", "/system/confirm")).status).toBe(200);
  }
  await page.reload();
  await expect(node).toHaveText("None needed: the proxy is off, everything goes direct");
  const mode = page
    .locator(".facts dt", { hasText: "Mode" })
    .locator("xpath=following-sibling::dd");
  await expect(mode).toHaveText("Direct (proxy off)");
  await setLang(page, "zh-CN");
  await expect(node).toHaveText("不需要：代理已关闭，所有流量直连");
  await setLang(page, "en");
  const on = await call(page, "PUT", "/settings", { ...settings.json, ...ports });
  expect(on.status, JSON.stringify(on.json)).toBe(200);
  // Kept, so no change waits for confirmation in the tests after this one.
  if (on.probation) {
    expect((await call(page, "POST", "/system/confirm")).status).toBe(200);
  }
  expect((await call(page, "GET", "/system/probation")).json).toMatchObject({ probation: null });
  expect((await call(page, "POST", "/system/service", { action: "stop" })).status).toBe(200);
});

const SELECT_DETAIL = "Selector PROXY: proxy not found in the provider";
const APPLY_DETAIL = 'Put "http://127.0.0.1:9090/configs?force=true": connection reset by peer';

test("a refused node selection: the sentence in Chinese, the core's words folded apart", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/subscriptions");
  await ensureSubscription(page);
  await page.route("**/api/v1/nodes/select", (route) =>
    route.fulfill({
      status: 400,
      json: {
        error: `The selection was saved but the core refused it: ${SELECT_DETAIL}`,
        code: "node.select_refused",
        params: { detail: SELECT_DETAIL },
      },
    }),
  );
  await page.goto(`${svc.url}/#/nodes`);
  await setLang(page, "zh-CN");
  await page
    .getByRole("button", { name: /^使用节点/ })
    .first()
    .click();
  const alert = page.locator("main").getByRole("alert");
  await expect(alert).toHaveText("选择已保存，但内核拒绝了它。");
  expect(await englishWords(alert)).toEqual([]);
  const output = page.getByTestId("core-output");
  await expect(output.locator("summary")).toHaveText("内核输出");
  await expect(output.locator("pre")).toHaveAttribute("lang", "en");
  await expect(output.locator("pre")).toHaveText(SELECT_DETAIL, { useInnerText: false });
  await shoot(page, "select-refused-zh");
  await setLang(page, "en");
});

test("a refresh the core refuses, now and as the last failure kept, says no English in Chinese", async ({
  page,
}) => {
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/subscriptions");
  await ensureSubscription(page);
  await page.reload();
  const refused = {
    error: `The change could not be applied to the core: ${APPLY_DETAIL}`,
    code: "core.apply_failed",
    params: { detail: APPLY_DETAIL },
  };
  await page.route("**/api/v1/subscriptions/*/refresh", (route) =>
    route.fulfill({ status: 400, json: refused }),
  );
  await setLang(page, "zh-CN");
  const item = page.getByRole("listitem", { name: "Home provider" });
  await item.getByRole("button", { name: "更新", exact: true }).click();
  const alert = item.getByRole("alert");
  await expect(alert).toHaveText("更新失败，已保留原有节点：无法把更改应用到内核。");
  expect(await englishWords(alert)).toEqual([]);
  await expect(item.getByTestId("core-output").locator("pre")).toHaveText(APPLY_DETAIL, {
    useInnerText: false,
  });

  // The failure as the list keeps it (lastError with its code and detail).
  await page.unroute("**/api/v1/subscriptions/*/refresh");
  await editJson<Array<Record<string, unknown>>>(
    page,
    "**/api/v1/subscriptions",
    (list) =>
      list.map((s) => ({
        ...s,
        lastError: refused.error,
        lastErrorCode: refused.code,
        lastErrorParams: refused.params,
        attemptedAt: new Date().toISOString(),
      })),
    (route) => route.request().method() === "GET",
  );
  await page.reload();
  const kept = page.getByRole("listitem", { name: "Home provider" }).locator(".alert-error");
  await expect(kept).toContainText("无法把更改应用到内核。");
  expect(await englishWords(kept)).toEqual([]);
  await expect(page.getByTestId("core-output").locator("summary")).toHaveText("内核输出");
  await shoot(page, "refresh-refused-zh");
});

test("a failed start keeps no English after the language changes, and is said once", async ({
  page,
}) => {
  // Another program holds the controller port the service was given.
  const holder = net.createServer((s) =>
    s.end("HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n"),
  );
  await new Promise<void>((ok) => holder.listen(0, "127.0.0.1", ok));
  const busy = await startProxyConsole({
    controllerPort: (holder.address() as AddressInfo).port,
  });
  try {
    await setUp(busy);
    await page.setViewportSize(DESKTOP);
    await signIn(page, busy, "#/dashboard");
    await expect(page.getByTestId("core-state")).toBeVisible();
    const started = page.waitForResponse((r) => r.url().endsWith("/api/v1/system/service"));
    await page.getByRole("button", { name: "Start", exact: true }).click();
    expect((await started).status()).toBeGreaterThanOrEqual(400);
    await expect(page.getByRole("button", { name: "Start", exact: true })).toBeEnabled();
    // The core's card (its title changes with the language).
    const card = page.locator("section.card").first();
    await expect(card.getByRole("alert").first()).toContainText("is used by another program");
    await setLang(page, "zh-CN");
    await expect(card.getByRole("alert").first()).toContainText("已被其他程序占用");
    expect(
      await englishWords(card.getByRole("alert"), ["Gatehouse", "core-controller-port"]),
    ).toEqual([]);
    // The start's failure says what the status already says: once.
    await expect(card.getByRole("alert").filter({ hasText: "已被其他程序占用" })).toHaveCount(1);
    await shoot(page, "start-port-held-zh");

    // The Logs page says why the core's log stream ended, naming the port, in each language.
    const port = (holder.address() as AddressInfo).port;
    await page.goto(`${busy.url}/#/logs`);
    const ended = page.locator("main").getByRole("alert");
    await expect(ended).toContainText(`端口 ${port} 已被其他程序占用`);
    expect(await englishWords(ended, ["Gatehouse", "core-controller-port"])).toEqual([]);
    await shoot(page, "logs-port-held-zh");
    await setLang(page, "en");
    await expect(ended).toContainText(`Port ${port} is used by another program`);
  } finally {
    await busy.close();
    holder.close();
  }
});

test("a wrong password is said again in Chinese when the language changes after it", async ({
  page,
}) => {
  // The proxy console's sign-in.
  await page.setViewportSize(DESKTOP);
  await page.goto(`${svc.url}/`);
  await page.getByLabel("Password").fill("not the password at all");
  await page.getByRole("button", { name: "Sign in" }).click();
  const alert = page.locator("main").getByRole("alert");
  await expect(alert).toHaveText("The password is wrong.");
  await setLang(page, "zh-CN");
  await expect(alert).toHaveText("密码错误。");
  await setLang(page, "en");

  // The parcel administrator's sign-in.
  const site = await startParcelSite();
  try {
    await page.goto(`${site.url}/#/admin`);
    await page.getByLabel("Username").fill(site.adminUser);
    await page.getByLabel("Password").fill("not the password at all");
    await page.getByRole("button", { name: "Sign in" }).click();
    const wrong = page.locator("main").getByRole("alert");
    await expect(wrong).toHaveText("Wrong username or password.");
    await page.locator("#lang-pick").selectOption("zh-CN");
    await expect(wrong).toHaveText("用户名或密码错误。");
    expect(await englishWords(wrong)).toEqual([]);
  } finally {
    await site.close();
  }
});
