import { expect, test, type Locator, type Page } from "@playwright/test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freePort,
  startProxyConsole,
  type ProxyConsole,
  coreCall,
} from "./support/proxy-harness.js";
import { callOk, DESKTOP, PHONE, setLang, setUp, signIn } from "./support/proxy-page.js";
import { shootView } from "./support/proxy-shots.js";

/**
 * What a first-time user met on the Devices screens: a policy that does nothing while the
 * proxy is off (the core then runs `mode: direct` and never reads the rules the policies are
 * written in), the chart's hour labels running into one another on a phone, and the rename
 * field's hint cut off at 360 px. Against the real service and the simulated core, with two
 * LAN devices moving bytes.
 */

const TABLET = { ip: "192.168.1.20", mac: "a4:83:e7:11:22:33", host: "kids-tablet" };
const TV = { ip: "192.168.1.40", mac: "02:42:ac:11:00:02" };
/** The narrowest phone the screens are made for. */
const NARROW = { width: 360, height: 780 };

let svc: ProxyConsole;
let dir = "";
let controllerPort = 0;

const sim = (method: string, path: string, body?: unknown): Promise<number> =>
  coreCall(svc, controllerPort, method, path, body);

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gh-devices-phone-e2e-"));
  const head = "IP address       HW type     Flags       HW address            Mask     Device\n";
  const row = (d: { ip: string; mac: string }) =>
    `${d.ip.padEnd(17)}0x1         0x2         ${d.mac}     *        br-lan\n`;
  writeFileSync(join(dir, "arp"), head + row(TABLET) + row(TV));
  writeFileSync(join(dir, "leases"), `1900000000 ${TABLET.mac} ${TABLET.ip} ${TABLET.host} *\n`);
  controllerPort = await freePort();
  svc = await startProxyConsole({
    controllerPort,
    neighbourTable: join(dir, "arp"),
    dhcpLeases: join(dir, "leases"),
    deviceTiming: { pollMs: 500, flushMs: 1000 },
  });
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Signs in at `hash` with the core running and both devices found. */
async function ready(page: Page, hash: string): Promise<void> {
  await signIn(page, svc, hash);
  await callOk(page, "POST", "/system/service", { action: "start" });
  const lan = [TABLET, TV].map((d) => ({
    ip: d.ip,
    connections: 1,
    up: 2_000,
    down: 50_000,
    host: "www.baidu.com",
  }));
  expect(await sim("PUT", "/__sim/lan", { devices: lan })).toBe(200);
  await expect
    .poll(async () => (await callOk<unknown[]>(page, "GET", "/devices")).length, {
      timeout: 20_000,
    })
    .toBe(2);
  await page.reload();
}

/** The proxy switch of Settings, saved and confirmed as the operator would. */
async function setProxy(page: Page, on: boolean): Promise<void> {
  const settings = await callOk<Record<string, unknown>>(page, "GET", "/settings");
  await callOk(page, "PUT", "/settings", { ...settings, proxyEnabled: on });
  await callOk(page, "POST", "/system/confirm");
}

/**
 * The boxes of the labels under each chart's time axis (drawn as text in the buckets' groups),
 * left to right, and the chart's own box.
 */
async function tickBoxes(chart: Locator) {
  return chart.evaluate((el) => {
    const svg = el.querySelector("svg");
    if (!svg) return null;
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, text: e.textContent ?? "" };
    };
    const labels = [...svg.querySelectorAll("g[data-bucket] text")].map(box);
    return { svg: box(svg), labels: labels.sort((a, b) => a.left - b.left) };
  });
}

/** Every chart on the page has at least two time labels, none touching the next, none cut. */
async function expectTicksApart(page: Page, what: string): Promise<void> {
  const charts = page.locator(".history-chart");
  await expect(charts.locator("svg").first()).toBeVisible();
  for (const chart of await charts.all()) {
    const got = await tickBoxes(chart);
    expect(got, what).not.toBeNull();
    const { svg, labels } = got!;
    expect(labels.length, `${what}: labels`).toBeGreaterThanOrEqual(2);
    for (const [i, l] of labels.entries()) {
      expect(l.left, `${what}: "${l.text}" inside the chart`).toBeGreaterThanOrEqual(
        svg.left - 0.5,
      );
      expect(l.right, `${what}: "${l.text}" inside the chart`).toBeLessThanOrEqual(svg.right + 0.5);
      const next = labels[i + 1];
      if (next) {
        expect(l.right + 2, `${what}: "${l.text}" clear of "${next.text}"`).toBeLessThanOrEqual(
          next.left,
        );
      }
    }
  }
}

test("proxy off: the list and a device's page say policies wait for it, and a change says so (English and Chinese)", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(DESKTOP);
  await ready(page, "#/devices");
  const tablet = page.locator(`.dev-row[data-device="${TABLET.mac}"]`);
  await expect(tablet).toBeVisible();
  // With the proxy on, no such note.
  await expect(page.getByText(/The proxy is off/)).toHaveCount(0);
  await setProxy(page, false);
  try {
    await page.reload();
    const note = page.getByTestId("dev-proxy-off");
    await expect(note).toContainText(
      "The proxy is off: every device goes direct, and the policies here (Blocked too) take effect only once it is on.",
    );
    const link = note.getByRole("link", { name: "Turn the proxy on in Settings" });
    await expect(link).toHaveAttribute("href", "#/settings");
    // The note is said with the control it is about.
    await expect(tablet.getByLabel("Policy of kids-tablet")).toHaveAttribute(
      "aria-describedby",
      /dev-proxy-off/,
    );
    await tablet.getByLabel("Policy of kids-tablet").selectOption("block");
    await expect(
      page.getByText(
        "kids-tablet: Blocked. This takes effect once the proxy is on; while it is off every device goes direct.",
      ),
    ).toBeVisible();
    await expect(tablet.getByText("Not in effect while the proxy is off")).toBeVisible();
    await shootView(page, "devices-proxy-off", { top: true, fullPage: true });

    await tablet.getByRole("link", { name: "Traffic of kids-tablet" }).click();
    await expect(page.getByTestId("dev-proxy-off")).toContainText("The proxy is off");
    await expect(page.getByText("Not in effect while the proxy is off")).toBeVisible();
    await page.getByTestId("dev-proxy-off").getByRole("link").click();
    await expect(page).toHaveURL(/#\/settings$/);
    await page.goBack();
    await expect(page.getByTestId("dev-proxy-off")).toBeVisible();
    await shootView(page, "device-proxy-off", { top: true, fullPage: true });

    await setLang(page, "zh-CN");
    await expect(page.getByTestId("dev-proxy-off")).toContainText(
      "代理已关闭：所有设备都直连，这里的策略（包括“禁止上网”）要在开启代理后才生效。",
    );
    await expect(
      page.getByTestId("dev-proxy-off").getByRole("link", { name: "到“设置”中开启代理" }),
    ).toBeVisible();
    await page.getByLabel("kids-tablet 的策略").selectOption("default");
    await expect(
      page.getByText("kids-tablet：按规则。开启代理后才生效；代理关闭期间所有设备都直连。"),
    ).toBeVisible();
    await shootView(page, "device-proxy-off", { top: true, fullPage: true });
    await page.setViewportSize(PHONE);
    await shootView(page, "device-proxy-off", { top: true, fullPage: true });
    await page.goto(`${svc.url}/#/devices`);
    await expect(page.getByTestId("dev-proxy-off")).toContainText("代理已关闭");
    await shootView(page, "devices-proxy-off", { top: true, fullPage: true });
    await setLang(page, "en");
    await shootView(page, "devices-proxy-off", { top: true, fullPage: true });
  } finally {
    await setProxy(page, true);
  }
  // Back on: the note goes, and a policy is confirmed plainly again.
  await page.reload();
  await expect(page.locator(".dev-row")).toHaveCount(2);
  await expect(page.getByTestId("dev-proxy-off")).toHaveCount(0);
  await page.getByLabel("Policy of kids-tablet").selectOption("block");
  await expect(page.getByText("kids-tablet: Blocked.", { exact: true })).toBeVisible();
  await page.getByLabel("Policy of kids-tablet").selectOption("default");
});

test("the charts' time labels never run into one another on a 360 px phone (24 h, 7 and 30 days, English and Chinese)", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(NARROW);
  await ready(page, `#/devices/${encodeURIComponent(TABLET.mac)}`);
  for (const lang of ["en", "zh-CN"] as const) {
    await setLang(page, lang);
    for (const [range, en, zh] of [
      ["24h", "24 hours", "24 小时"],
      ["7d", "7 days", "7 天"],
      ["30d", "30 days", "30 天"],
    ] as const) {
      await page.getByRole("button", { name: lang === "en" ? en : zh, exact: true }).click();
      const count = { "24h": 24, "7d": 7, "30d": 30 }[range];
      await expect(page.locator(".history-chart g[data-bucket]")).toHaveCount(count);
      await expectTicksApart(page, `${lang} ${range} at 360 px`);
    }
    await page.getByRole("button", { name: lang === "en" ? "24 hours" : "24 小时" }).click();
    await expect(page.locator(".history-chart g[data-bucket]")).toHaveCount(24);
    // Hours in the reader's way: "9 AM" in English, "9:00" (24-hour) in Chinese.
    const hour = lang === "en" ? /^\d{1,2}\s(AM|PM)$/ : /^\d{1,2}:00$/;
    for (const text of await page.locator(".history-chart g[data-bucket] text").allTextContents())
      expect(text).toMatch(hour);
    await page.setViewportSize(PHONE);
    await expectTicksApart(page, `${lang} 24h at 390 px`);
    await shootView(page, "device-chart-24h", { top: true, fullPage: true });
    await page.setViewportSize(DESKTOP);
    await expectTicksApart(page, `${lang} 24h at 1440 px`);
    await shootView(page, "device-chart-24h", { top: true, fullPage: true });
    await page.setViewportSize(NARROW);
  }
  await setLang(page, "en");
  await page.goto(`${svc.url}/#/dashboard`);
  await expect(page.getByRole("region", { name: "Busiest devices, last 24 hours" })).toBeVisible();
  await expectTicksApart(page, "the dashboard's card at 360 px");
  await page.setViewportSize(PHONE);
  await expectTicksApart(page, "the dashboard's card at 390 px");
  const card = page.getByRole("region", { name: "Busiest devices, last 24 hours" });
  await card.scrollIntoViewIfNeeded();
  await shootView(page, "dashboard-devices-chart");
});

test("the rename field's hint is whole on a 360 px phone", async ({ page }) => {
  await page.setViewportSize(NARROW);
  await ready(page, "#/devices");
  const tablet = page.locator(`.dev-row[data-device="${TABLET.mac}"]`);
  await tablet.getByRole("button", { name: "Rename kids-tablet" }).click();
  const field = tablet.getByLabel("New name of kids-tablet");
  await expect(field).toBeFocused();
  // The placeholder fits the field as drawn (the browser cuts it without saying so).
  const fits = await field.evaluate((el) => {
    const input = el as HTMLInputElement;
    const style = getComputedStyle(input);
    const ctx = document.createElement("canvas").getContext("2d");
    if (!ctx) return null;
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { text: ctx.measureText(input.placeholder).width, room };
  });
  expect(fits).not.toBeNull();
  expect(fits!.text).toBeLessThanOrEqual(fits!.room);
  // The whole hint is said beside the field, inside the screen.
  const hint = tablet.getByText("Leave it empty to use the name the device has on the network");
  await expect(hint).toBeVisible();
  await expect(field).toHaveAttribute("aria-describedby", (await hint.getAttribute("id")) ?? "-");
  const box = await hint.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(NARROW.width);
  expect(await hint.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  for (const lang of ["en", "zh-CN"] as const) {
    await setLang(page, lang);
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      // A change of width may close the menu; the field stays open.
      await expect(tablet.locator(".dev-rename input")).toBeVisible();
      await shootView(page, "devices-rename", { top: true });
    }
    await page.setViewportSize(NARROW);
  }
  await setLang(page, "en");
  await tablet.getByRole("button", { name: "Cancel" }).click();
  await expect(tablet.locator(".dev-name a")).toHaveText("kids-tablet");
});
