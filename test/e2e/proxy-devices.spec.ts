import { expect, test, type Page } from "@playwright/test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TrafficView } from "../../server/contract/proxy.js";
import { hourOf, localDayOf } from "../../server/proxy/domain/devices-time.js";
import type { SqlProxyStore } from "../../server/proxy/store/proxy-store.js";
import {
  freePort,
  startProxyConsole,
  type ProxyConsole,
  coreCall,
} from "./support/proxy-harness.js";
import { callInPage, DESKTOP, PHONE, setLang, setUp, signIn } from "./support/proxy-page.js";
import { shootView } from "./support/proxy-shots.js";

/**
 * The Devices screen, a device's page and the dashboard's busiest devices, against the real
 * service with the simulated core and three LAN devices moving bytes every second: names from
 * the leases, MAC and maker, online dots, today's traffic, rename in place, a policy in one
 * control reaching the compiled rules, the charts over 24 hours, 7 and 30 days (with 30 days
 * of history written beforehand), in English and Chinese, light and dark, phone and desktop.
 */

const TABLET = { ip: "192.168.1.20", mac: "a4:83:e7:11:22:33", host: "kids-tablet" };
const LAPTOP = { ip: "192.168.1.30", mac: "00:1a:11:0a:0b:0c", host: "work-laptop" };
const TV = { ip: "192.168.1.40", mac: "02:42:ac:11:00:02", host: "" };
const HOUR = 3_600_000;

/** Linux's /proc/net/arp with these entries (the service reads the test's own copy). */
function arpText(entries: Array<{ ip: string; mac: string }>): string {
  const head = "IP address       HW type     Flags       HW address            Mask     Device\n";
  const lines = entries.map(
    (e) => `${e.ip.padEnd(17)}0x1         0x2         ${e.mac}     *        br-lan\n`,
  );
  return head + lines.join("");
}

let svc: ProxyConsole;
let dir = "";
let controllerPort = 0;

const sim = (method: string, path: string, body?: unknown): Promise<number> =>
  coreCall(svc, controllerPort, method, path, body);

/** 30 days of history before today, so the 7- and 30-day charts have something to draw. */
function writeHistory(): void {
  const store = svc.service.ctx.store as unknown as SqlProxyStore;
  const now = Date.now();
  const rows = [];
  for (const [i, d] of [TABLET, LAPTOP, TV].entries()) {
    const row = store.devices.get(d.mac);
    if (!row) throw new Error(`${d.mac} not discovered`);
    for (let h = 30 * 24; h >= 1; h--) {
      const at = now - h * HOUR;
      // An evening peak, and a device that moves more the later in the list it is not.
      const hourOfDay = new Date(at).getHours();
      const load = (hourOfDay >= 18 && hourOfDay <= 23 ? 6 : 1) * (3 - i) * 40 * 1024 * 1024;
      rows.push({
        key: row.key,
        hour: hourOf(at),
        day: localDayOf(at),
        upload: Math.round(load / 12),
        download: load,
      });
    }
  }
  store.traffic.add(rows);
}

async function shoot(page: Page, name: string): Promise<void> {
  await shootView(page, `devices-${name}`, { top: true, fullPage: true });
}

interface Listed {
  id: string;
  name: string;
  policy: string;
  online: boolean;
  today: { upload: number; download: number };
}

async function devices(page: Page): Promise<Listed[]> {
  const r = await callInPage<Listed[]>(page, "GET", "/devices");
  expect(r.status).toBe(200);
  return r.json;
}

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gh-devices-e2e-"));
  writeFileSync(join(dir, "arp"), arpText([TABLET, LAPTOP, TV]));
  writeFileSync(
    join(dir, "leases"),
    `1900000000 ${TABLET.mac} ${TABLET.ip} ${TABLET.host} *\n` +
      `1900000000 ${LAPTOP.mac} ${LAPTOP.ip} ${LAPTOP.host} 01:${LAPTOP.mac}\n`,
  );
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

test("devices: discovered, named, renamed in place, a policy in one control, charts of 24 h, 7 and 30 days", async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/devices");
  // No device has used the proxy yet.
  await expect(page.getByText(/No device has used the proxy yet/)).toBeVisible();
  expect((await callInPage(page, "POST", "/system/service", { action: "start" })).status).toBe(200);
  const lan = [
    { ...TABLET, connections: 2, up: 4_000, down: 60_000 },
    { ...LAPTOP, connections: 3, up: 20_000, down: 300_000 },
    { ...TV, connections: 1, up: 1_000, down: 120_000 },
    // A mainland site: direct by the rule sets, so the core needs no node to carry it.
  ].map(({ ip, connections, up, down }) => ({ ip, connections, up, down, host: "www.baidu.com" }));
  expect(await sim("PUT", "/__sim/lan", { devices: lan })).toBe(200);
  await expect
    .poll(async () => (await devices(page)).filter((d) => d.today.download > 0).length, {
      timeout: 20_000,
    })
    .toBe(3);
  writeHistory();

  // The list: names from the leases (the TV has none: its address), MAC and maker, online.
  await page.reload();
  const rows = page.locator(".dev-row");
  await expect(rows).toHaveCount(3);
  const tablet = page.locator(`.dev-row[data-device="${TABLET.mac}"]`);
  await expect(tablet.locator(".dev-name a")).toHaveText("kids-tablet");
  // The maker is looked up in the reader's thread after the device is found; when that ends
  // after the reload (a busy machine), the list shows it at its next refresh (every 10 s), and
  // a lookup that failed is asked again at the next table read (every 10 s).
  await expect(tablet.locator(".dev-mac")).toContainText(`${TABLET.mac} · Apple`, {
    timeout: 30_000,
  });
  await expect(tablet.getByRole("img", { name: "kids-tablet is online" })).toBeVisible();
  const tv = page.locator(`.dev-row[data-device="${TV.mac}"]`);
  await expect(tv.locator(".dev-name a")).toHaveText(TV.ip);
  // A private (randomised) MAC has no maker.
  await expect(tv.locator(".dev-mac")).toHaveText(TV.mac);
  await expect(tablet.locator(".dev-today")).toContainText(/↓ [1-9][\d.]* (KiB|MiB|GiB)/);

  // Rename in place.
  await tablet.getByRole("button", { name: "Rename kids-tablet" }).click();
  await tablet.getByLabel("New name of kids-tablet").fill("Children's tablet");
  await tablet.getByRole("button", { name: "Save" }).click();
  await expect(tablet.locator(".dev-name a")).toHaveText("Children's tablet");
  await expect(page.getByText("Renamed to Children's tablet.")).toBeVisible();
  expect((await devices(page)).find((d) => d.id === TABLET.mac)?.name).toBe("Children's tablet");

  // One control: the policy reaches the core's compiled rules, and the tablet stops moving.
  await tablet.getByLabel("Policy of Children's tablet").selectOption("block");
  await expect(page.getByText("Children's tablet: Blocked.")).toBeVisible();
  const { configFile } = svc.service.ctx.core as unknown as { configFile: string };
  const config = readFileSync(configFile, "utf8");
  expect(config).toContain(`SRC-IP-CIDR,${TABLET.ip}/32,REJECT`);
  await tablet.getByLabel("Policy of Children's tablet").selectOption("default");
  await expect(page.getByText("Children's tablet: As the rules say.")).toBeVisible();
  await shoot(page, "list");

  // The device page: details and the chart of each range, one group of bars per bucket.
  await tablet.getByRole("link", { name: "Traffic of Children's tablet" }).click();
  await expect(page).toHaveURL(/#\/devices\/a4%3A83%3Ae7/);
  await expect(page.getByText("kids-tablet", { exact: true })).toBeVisible();
  for (const range of ["24h", "7d", "30d"] as const) {
    const label = { "24h": "24 hours", "7d": "7 days", "30d": "30 days" }[range];
    await page.getByRole("button", { name: label, exact: true }).click();
    const api = await callInPage<TrafficView>(
      page,
      "GET",
      `/traffic?range=${range}&device=${encodeURIComponent(TABLET.mac)}`,
    );
    await expect(page.locator(".history-chart g[data-bucket]")).toHaveCount(api.json.points.length);
    await expect(page.locator(".history-chart svg")).toHaveAttribute(
      "aria-label",
      new RegExp(`^Traffic over ${label}: [\\d.]+ (MiB|GiB) up`),
    );
    if (range === "7d") await shoot(page, "page-7d");
  }
  await shoot(page, "page-30d");

  // The dashboard: the day's busiest devices in the service's order (the tablet's history is
  // the largest).
  await page.goto(`${svc.url}/#/dashboard`);
  const top = page.getByRole("region", { name: "Busiest devices, last 24 hours" });
  await expect(top.locator(".top-devices li")).toHaveCount(3);
  const day = await callInPage<TrafficView>(page, "GET", "/traffic?range=24h");
  expect(day.json.devices?.[0]?.id).toBe(TABLET.mac);
  await expect(top.locator(".top-devices li a")).toHaveText(
    (day.json.devices ?? []).map((d) => d.name),
  );
  await top.scrollIntoViewIfNeeded();
  await shoot(page, "dashboard");

  // Chinese, and a phone.
  await setLang(page, "zh-CN");
  await expect(top).toHaveCount(0);
  await expect(page.getByRole("region", { name: "最近 24 小时流量最多的设备" })).toBeVisible();
  await shoot(page, "dashboard");
  await page.goto(`${svc.url}/#/devices`);
  await expect(page.getByRole("combobox", { name: "Children's tablet 的策略" })).toBeVisible();
  await shoot(page, "list");
  await page.setViewportSize(PHONE);
  await expect(page.locator(".dev-row")).toHaveCount(3);
  // Nothing sticks out of a phone's width.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await shoot(page, "list");
  await page.goto(`${svc.url}/#/devices/${encodeURIComponent(LAPTOP.mac)}`);
  await page.getByRole("button", { name: "30 天", exact: true }).click();
  await expect(page.locator(".history-chart g[data-bucket]")).toHaveCount(30);
  await shoot(page, "page-30d");
  await page.goto(`${svc.url}/#/dashboard`);
  await expect(page.locator(".top-devices li")).toHaveCount(3);
  await shoot(page, "dashboard");
  await page.goto(`${svc.url}/#/devices/${encodeURIComponent(LAPTOP.mac)}`);
  await expect(page.locator(".history-chart g[data-bucket]")).toHaveCount(24);
  await setLang(page, "en");
  await page.getByRole("button", { name: "30 days", exact: true }).click();
  await expect(page.locator(".history-chart g[data-bucket]")).toHaveCount(30);
  await shoot(page, "page-30d");
  await page.goto(`${svc.url}/#/devices`);
  await shoot(page, "list");

  // Forgetting asks first, then the device and its history are gone.
  await page.goto(`${svc.url}/#/devices/${encodeURIComponent(TV.mac)}`);
  await page.getByRole("button", { name: "Forget this device" }).click();
  await expect(page.getByText(/Forget 192\.168\.1\.40 with its name/)).toBeVisible();
  expect(await sim("PUT", "/__sim/lan", { devices: lan.slice(0, 2) })).toBe(200);
  await page.getByRole("button", { name: "Forget", exact: true }).click();
  await expect(page).toHaveURL(/#\/devices$/);
  await expect(page.locator(".dev-row")).toHaveCount(2);
});
