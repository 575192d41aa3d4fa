import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { basename, join, resolve } from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import {
  callInPage as call,
  DESKTOP,
  PHONE,
  setLang,
  setUp,
  shootEverywhere,
  signIn,
} from "./support/proxy-page.js";

/**
 * The System and Connections screens as a careful new user reads them: the core's program
 * path broken only at its slashes, the sites' names in the reader's language, Chinese
 * punctuation after Chinese words, a restore that reads the file before it asks (and says
 * what it holds), and an empty connections list with no empty box on a phone.
 */

let svc: ProxyConsole;
let dir: string;
let coreBin: string;

test.beforeAll(async () => {
  // The core behind a long path, as an installed app's often is.
  dir = mkdtempSync(join(tmpdir(), "gh-system-ux-"));
  const deep = join(dir, "Applications", "Gatehouse Proxy Console.app", "Contents", "Resources");
  mkdirSync(join(deep, "core-programs-for-this-machine"), { recursive: true });
  coreBin = join(deep, "core-programs-for-this-machine", "mihomo-linux-amd64-compatible");
  symlinkSync(resolve("test/fixtures/fake-core.mjs"), coreBin);
  // Its rules' data as the app ships it (beside the real fake core, not the link).
  svc = await startProxyConsole({ coreBin, geodataDirs: [resolve("test/fixtures")] });
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});
test.describe.configure({ mode: "serial" });

// The service runs in this worker's process: when a test fails, what it logged and the
// longest stall of the event loop (a blocked loop stops the service and the test alike).
let lag: IntervalHistogram;
test.beforeEach(() => {
  lag = monitorEventLoopDelay({ resolution: 20 });
  lag.enable();
});
test.afterEach(async () => {
  const info = test.info();
  lag.disable();
  if (info.status === info.expectedStatus) return;
  const stall = `longest event-loop stall: ${Math.round(lag.max / 1e6)} ms`;
  await info.attach("service-log.txt", { body: [stall, ...svc.log.slice(-200)].join("\n") });
});

/** Where the text of `el` breaks onto a new line: the character just before each break. */
async function charsBeforeBreaks(el: Locator): Promise<string[]> {
  return el.evaluate((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const chars: Array<{ ch: string; top: number }> = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? "";
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getBoundingClientRect();
        if (rect.width > 0) chars.push({ ch: text[i], top: Math.round(rect.top) });
      }
    }
    const out: string[] = [];
    for (let i = 1; i < chars.length; i++)
      if (chars[i].top > chars[i - 1].top + 2) out.push(chars[i - 1].ch);
    return out;
  });
}

async function systemPage(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await signIn(page, svc, "#/system");
}

for (const [label, size] of [
  ["laptop", DESKTOP],
  ["phone", PHONE],
] as const) {
  test(`the core's program name is never cut mid-word, nor sticks out (${label})`, async ({
    page,
  }) => {
    await systemPage(page, size);
    const path = page.locator("code.install-path");
    // The program's own name (never the machine's folders), whole: any break follows a slash.
    await expect(path).toHaveText(basename(coreBin));
    const breaks = await charsBeforeBreaks(path);
    expect(breaks.filter((ch) => ch !== "/")).toEqual([]);
    // It never sticks out of its card.
    const card = page.getByRole("region", { name: "Proxy core program" });
    const [p, c] = [await path.boundingBox(), await card.boundingBox()];
    expect(p && c && p.x + p.width <= c.x + c.width + 0.5).toBe(true);
  });
}

test("the sites have Chinese names in Chinese, and no Chinese word is followed by an ASCII colon", async ({
  page,
}) => {
  await systemPage(page, DESKTOP);
  await setLang(page, "zh-CN");
  const sites = page.getByRole("region", { name: "连通性测试" });
  await expect(sites.getByRole("button", { name: "测试 百度" })).toHaveText("百度");
  await expect(sites.getByRole("button", { name: "测试 哔哩哔哩" })).toHaveText("哔哩哔哩");
  await expect(sites.getByRole("button", { name: "测试 维基百科" })).toHaveText("维基百科");
  await expect(sites.getByText("Baidu")).toHaveCount(0);
  await expect(sites.getByText("Bilibili")).toHaveCount(0);
  expect(await page.locator("main").innerText()).not.toMatch(/[\u4e00-\u9fff） ]:/);
  await page.goto(`${svc.url}/#/settings`);
  await expect(page.locator(".checks li").first()).toHaveText(/^[✓✗] IPv4 转发：(是|否)$/);
  expect(await page.locator("main").innerText()).not.toMatch(/[\u4e00-\u9fff]:/);
  await page.goto(`${svc.url}/#/system`);
  await setLang(page, "en");
  await expect(page.getByRole("button", { name: "Test Baidu" })).toHaveText("Baidu");
  await shootEverywhere(page, "system-screen", { fullPage: true });
});

test("restore reads the file before it asks: a photo or a stranger's JSON is refused at once; a backup is named by what it holds", async ({
  page,
}) => {
  await systemPage(page, DESKTOP);
  const card = page.getByRole("region", { name: "Backup and restore" });
  const input = card.getByTestId("restore-input");
  const ask = card.getByRole("group", { name: "Restore this backup?" });

  // Not JSON at all: said at once, nothing asked.
  await input.setInputFiles({
    name: "photo.jpg",
    mimeType: "image/jpeg",
    buffer: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]),
  });
  await expect(card.getByRole("alert")).toHaveText(
    "photo.jpg is not a Gatehouse proxy backup: it is not a JSON file. Nothing was changed.",
  );
  await expect(ask).toHaveCount(0);

  // JSON, but not a backup's shape.
  await input.setInputFiles({
    name: "notes.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify({ hello: 1 })),
  });
  await expect(card.getByRole("alert")).toHaveText(
    "notes.json is not a Gatehouse proxy backup: it has no settings, subscriptions and rules of this console. Nothing was changed.",
  );
  await expect(ask).toHaveCount(0);

  // A backup of another version.
  await input.setInputFiles({
    name: "future.json",
    mimeType: "application/json",
    buffer: Buffer.from(
      JSON.stringify({ version: 2, state: { settings: {}, subscriptions: [], rules: [] } }),
    ),
  });
  await expect(card.getByRole("alert")).toHaveText(
    "future.json cannot be restored: only backups of version 1 can be restored. Nothing was changed.",
  );
  await expect(ask).toHaveCount(0);

  // A real backup: the question names the file, its date and what it holds.
  await call(page, "POST", "/rules", {
    type: "DOMAIN",
    value: "kept.example",
    action: "PROXY",
    enabled: true,
  });
  const backup = JSON.parse(
    await (await page.request.get(`${svc.url}/api/v1/system/backup`)).text(),
  ) as { exportedAt: string };
  await input.setInputFiles({
    name: "gatehouse-proxy-2026-11-28.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(backup)),
  });
  const when = await page.evaluate(
    (at) => new Date(at).toLocaleString("en", { dateStyle: "medium", timeStyle: "short" }),
    backup.exportedAt,
  );
  await expect(ask).toContainText(
    `Restore gatehouse-proxy-2026-11-28.json, the backup of ${when}: the settings, 0 subscriptions and 1 rule? Everything the console holds now is replaced.`,
  );
  await expect(card.getByRole("alert")).toHaveCount(0);
  await shootEverywhere(page, "restore-ask-named", {
    before: async () => {
      const box = page.locator(".confirm-box");
      await expect(box).toBeVisible();
      await box.scrollIntoViewIfNeeded();
    },
  });
  await setLang(page, "zh-CN");
  await expect(page.getByRole("group", { name: "恢复此备份？" })).toContainText(
    "：设置、0 个订阅和 1 条规则？控制台现有的内容都会被替换。",
  );
  await setLang(page, "en");
  await ask.getByRole("button", { name: "Restore", exact: true }).click();
  await expect(card.getByText("The backup was restored.")).toBeVisible();
});

test("a phone's empty connections list is one line, with no empty box above or below it", async ({
  page,
}) => {
  // Each phase is a step with its own limit, so a run that hangs names the phase.
  const card = page.getByRole("region", { name: "Live connections" });
  await test.step(
    "the core stopped: one sentence, no empty table",
    async () => {
      await page.setViewportSize(PHONE);
      await signIn(page, svc, "#/connections");
      await expect(card.getByRole("status").filter({ hasText: "is stopped" })).toBeVisible();
      await expect(card.getByRole("alert")).toHaveCount(0);
      await expect(card.getByRole("table")).toHaveCount(0);
      const stopped = await card.boundingBox();
      expect(stopped?.height ?? 999).toBeLessThan(320);
    },
    { timeout: 20_000 },
  );

  await test.step(
    "POST /system/service start",
    async () => {
      const started = await call(page, "POST", "/system/service", { action: "start" });
      expect(started.status, JSON.stringify(started.json)).toBe(200);
    },
    { timeout: 20_000 },
  );

  const none = card.getByText("No active connections.");
  await test.step(
    "reload: the sentence right under the search",
    async () => {
      await page.reload();
      await expect(none).toBeVisible({ timeout: 15_000 });
      await expect(card.getByRole("table")).toHaveCount(0);
      const [search, line] = [
        await card.getByRole("searchbox").boundingBox(),
        await none.boundingBox(),
      ];
      expect(line && search && line.y - (search.y + search.height)).toBeLessThan(80);
      const box = await card.boundingBox();
      expect(box?.height ?? 999).toBeLessThan(320);
    },
    { timeout: 20_000 },
  );

  await test.step("screenshots", () => shootEverywhere(page, "connections-empty"), {
    timeout: 40_000,
  });
  await test.step(
    "POST /system/service stop",
    async () => {
      expect((await call(page, "POST", "/system/service", { action: "stop" })).status).toBe(200);
    },
    { timeout: 20_000 },
  );
});
