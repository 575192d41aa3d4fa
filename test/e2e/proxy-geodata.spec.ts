import { expect, test } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../server/clock.js";
import { startGeodataServer } from "../fixtures/geodata-server.js";
import { refusedPort, startProxyConsole } from "./support/proxy-harness.js";
import {
  callInPage as call,
  DESKTOP,
  PHONE,
  setLang,
  setUp,
  signIn,
} from "./support/proxy-page.js";
import { shootTarget } from "./support/proxy-shots.js";

/**
 * A gateway whose core has no geodata (none shipped, nothing downloaded yet): the console says
 * the core cannot start and how to fix it, the System screen's button fetches the files and
 * says so in words; a scheduled subscription that has not refreshed for over twice its
 * interval is marked out of date in the list and on the dashboard. Both languages.
 */

const HOUR = 3_600_000;

test("missing geodata is said on the dashboard, and Update geodata on the System screen fetches it", async ({
  page,
}) => {
  const empty = mkdtempSync(join(tmpdir(), "gh-no-geodata-"));
  const geo = await startGeodataServer();
  const svc = await startProxyConsole({ geodataDirs: [empty], geodataURL: geo.url });
  try {
    await setUp(svc);
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await signIn(page, svc, "#/dashboard");
      const card = page.getByRole("region", { name: "Proxy core" });
      await expect(card.getByTestId("geodata-missing")).toHaveText(
        "The proxy core cannot start: geoip.metadb and geosite.dat missing. Use “Update geodata” on the System screen to download it.",
      );
      await shootTarget(page, "dashboard-geodata-missing", card);
      await setLang(page, "zh-CN");
      const zhCard = page.getByRole("region", { name: "代理内核" });
      await expect(zhCard.getByTestId("geodata-missing")).toHaveText(
        "代理内核无法启动：缺少 geoip.metadb 和 geosite.dat。请在“系统”页面使用“更新地理数据”下载。",
      );
      await shootTarget(page, "dashboard-geodata-missing", zhCard);
      await setLang(page, "en");
      await page.context().clearCookies();
    }

    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/system");
    const geoCard = page.getByRole("region", { name: "Rule data (geodata)" });
    await expect(geoCard.getByTestId("geodata-files")).toHaveText("None yet");
    await geoCard.getByRole("button", { name: "Update geodata" }).click();
    await expect(
      geoCard.getByText(
        "Geodata updated: geoip.metadb and geosite.dat. A running core uses the new files from its next start.",
      ),
    ).toBeVisible();
    await expect(geoCard.getByTestId("geodata-files")).toContainText("geosite.dat");
    await expect(geoCard.getByTestId("geodata-missing")).toHaveCount(0);
    await shootTarget(page, "system-geodata", geoCard);
    await setLang(page, "zh-CN");
    const zhGeo = page.getByRole("region", { name: "规则数据（地理数据）" });
    await zhGeo.getByRole("button", { name: "更新地理数据" }).click();
    await expect(
      zhGeo.getByText(
        "地理数据已更新：geoip.metadb 和 geosite.dat。正在运行的内核在下次启动时使用新文件。",
      ),
    ).toBeVisible();
    await shootTarget(page, "system-geodata", zhGeo);
    await page.setViewportSize(PHONE);
    await shootTarget(page, "system-geodata", zhGeo);

    // A checksum the download does not match: said in the reader's language, nothing changed.
    geo.sums.set("geosite.dat", "0".repeat(64));
    await zhGeo.getByRole("button", { name: "更新地理数据" }).click();
    await expect(
      zhGeo.getByText("下载的 geosite.dat 与公布的校验值不符，没有使用。没有做任何更改。"),
    ).toBeVisible();
    await setLang(page, "en");
    expect((await call(page, "POST", "/system/service", { action: "start" })).status).toBe(200);
  } finally {
    await svc.close();
    await geo.close();
    rmSync(empty, { recursive: true, force: true });
  }
});

test("a scheduled subscription with no success for over twice its interval is marked out of date", async ({
  page,
}) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const svc = await startProxyConsole({ clock, schedulerIntervalMs: 0 });
  try {
    await setUp(svc);
    await page.setViewportSize(DESKTOP);
    await signIn(page, svc, "#/subscriptions");
    const created = await call(page, "POST", "/subscriptions", {
      name: "Tokyo feed",
      url: `http://127.0.0.1:${await refusedPort()}/gone`,
      enabled: true,
      intervalHours: 6,
    });
    expect(created.status).toBe(200);
    clock.advance(12 * HOUR + 1);
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await page.goto(`${svc.url}/#/subscriptions`);
      const item = page.getByRole("listitem", { name: "Tokyo feed" });
      await expect(item.getByText("Out of date", { exact: true })).toBeVisible();
      // Never read: nothing is claimed of what its provider reports.
      await expect(item.getByText("The provider reports no data usage.")).toHaveCount(0);
      await expect(item.getByTestId("stale-hint")).toHaveText(
        "No successful refresh for more than twice its interval (12 h): its nodes may no longer work.",
      );
      await shootTarget(page, "subscriptions-stale", item);
      await setLang(page, "zh-CN");
      await expect(item.getByText("已过期", { exact: true })).toBeVisible();
      await shootTarget(page, "subscriptions-stale", item);

      await page.goto(`${svc.url}/#/dashboard`);
      const card = page.getByRole("region", { name: "代理内核" });
      await expect(card.getByTestId("stale-subscriptions")).toContainText(
        "已过期（超过两倍更新间隔没有成功更新）：Tokyo feed",
      );
      await shootTarget(page, "dashboard-stale", card);
      await setLang(page, "en");
      await expect(page.getByTestId("stale-subscriptions")).toContainText(
        "Out of date (no successful refresh for more than twice their interval): Tokyo feed",
      );
      await shootTarget(page, "dashboard-stale", page.getByRole("region", { name: "Proxy core" }));
    }
  } finally {
    await svc.close();
  }
});
