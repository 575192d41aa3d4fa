import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  proxyConsole,
  startService,
  until,
  type Client,
  type ServiceProcess,
  FAULT_TEST_TIMEOUT_MS,
} from "../helpers/fault-service.js";
import { processGone, untilGone } from "../helpers/processes.js";
import { freePort } from "./proxy-core-harness.js";

// Each test starts the real service several times: a busy machine needs more than 30 s.
vi.setConfig({ testTimeout: FAULT_TEST_TIMEOUT_MS });

/**
 * SIGKILL of the real headless proxy service (with the fake core running) while a change that
 * needs confirming is on its way, then a restart on the same data dir: an unconfirmed change
 * never outlives the crash. The previous settings, rules and configuration come back and the
 * core runs on them, as they would have at the deadline.
 */

const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");
const KEPT_RULE = { type: "DOMAIN-SUFFIX", value: "kept.example", action: "DIRECT" };
const LATER_RULE = { type: "DOMAIN-SUFFIX", value: "later.example", action: "PROXY" };

let dir: string;
let controllerPort: number;
const running: ServiceProcess[] = [];

interface Settings {
  proxyEnabled: boolean;
  [key: string]: unknown;
}

interface Status {
  coreOnline: boolean;
  configErrorCode: string;
  probation: { deadline: number } | null;
}

async function start(fault?: string): Promise<{ svc: ServiceProcess; console: Client }> {
  const svc = await startService({
    dataDir: dir,
    only: "proxy",
    args: ["--core-bin", FAKE_CORE, "--core-controller-port", String(controllerPort)],
    env: fault ? { GATEHOUSE_FAULT: fault } : {},
  });
  running.push(svc);
  return { svc, console: await proxyConsole(svc) };
}

const proxyDir = () => join(dir, "proxy");
const probationFile = () => join(proxyDir(), "probation.json");
const configYaml = () => readFileSync(join(proxyDir(), "core", "config.yaml"), "utf8");

async function status(c: Client): Promise<Status> {
  return c.expect<Status>(200, "GET", "/api/v1/status");
}

async function coreOnline(c: Client): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await status(c)).coreOnline) {
    if (Date.now() > end) throw new Error("the core did not come up");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The gateway as an operator leaves it: free ports, one rule, the core running; then a
 * graceful stop, so the next run starts the core again by itself.
 */
async function prepared(): Promise<void> {
  const { svc, console: c } = await start();
  const settings = await c.expect<Settings>(200, "GET", "/api/v1/settings");
  await c.expect(200, "PUT", "/api/v1/settings", {
    body: { ...settings, mixedPort: await freePort(), dnsPort: await freePort() },
  });
  await c.expect(200, "POST", "/api/v1/rules", { body: KEPT_RULE });
  await c.expect(200, "POST", "/api/v1/system/service", { body: { action: "start" } });
  await coreOnline(c);
  expect(await svc.stop()).toBe(0);
}

/** Runs `request` against a service armed at `point` and waits for the kill. */
async function killedAt(
  point: string,
  request: (c: Client) => Promise<unknown>,
  before?: (c: Client) => Promise<void>,
): Promise<void> {
  const { svc, console: c } = await start(`${point}:kill`);
  await coreOnline(c);
  await before?.(c);
  request(c).catch(() => undefined);
  await svc.reached(point);
  await svc.kill();
}

/** After the restart: the change is undone everywhere and nothing waits for confirmation. */
async function checkUndone(c: Client): Promise<Status> {
  const settings = await c.expect<Settings>(200, "GET", "/api/v1/settings");
  expect(settings.proxyEnabled).toBe(true);
  await coreOnline(c);
  const s = await status(c);
  expect(s.probation).toBeNull();
  expect(existsSync(probationFile())).toBe(false);
  // The core runs the configuration of the settings in force, not the unconfirmed one.
  expect(configYaml()).toMatch(/^mode: rule$/m);
  return s;
}

async function ruleValues(c: Client): Promise<string[]> {
  const rules = await c.expect<{ custom: Array<{ value: string }> }>(200, "GET", "/api/v1/rules");
  return rules.custom.map((r) => r.value);
}

async function changedBackup(c: Client): Promise<unknown> {
  const backup = await c.expect<{ state: { settings: Settings; rules: unknown[] } }>(
    200,
    "GET",
    "/api/v1/system/backup",
  );
  backup.state.settings.proxyEnabled = false;
  backup.state.rules = [];
  return backup;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "gh-fault-probation-"));
  controllerPort = await freePort();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.kill()));
  // A core the killed service left behind is stopped by the next start; one that outlived
  // the last start of the test goes here.
  const pidFile = join(proxyDir(), "core", "core.pid");
  if (existsSync(pidFile)) {
    try {
      process.kill(Number(readFileSync(pidFile, "utf8").trim()), "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("SIGKILL while a change that needs confirming is applied, then restart", () => {
  it("PUT /settings killed after the commit: the previous settings and configuration come back", async () => {
    await prepared();
    await killedAt("proxy.settings-committed", async (c) => {
      const settings = await c.expect<Settings>(200, "GET", "/api/v1/settings");
      return c.request("PUT", "/api/v1/settings", { body: { ...settings, proxyEnabled: false } });
    });
    const { svc, console: c } = await start();
    const s = await checkUndone(c);
    expect(s.configErrorCode).toBe("probation.rolled_back_restart");
    expect(await svc.stop()).toBe(0);
  });

  it("PUT /settings killed before the rollback point is written: nothing was changed", async () => {
    await prepared();
    await killedAt("proxy.before-probation-file", async (c) => {
      const settings = await c.expect<Settings>(200, "GET", "/api/v1/settings");
      return c.request("PUT", "/api/v1/settings", { body: { ...settings, proxyEnabled: false } });
    });
    const { svc, console: c } = await start();
    const s = await checkUndone(c);
    // Nothing was committed, so there is nothing to report either.
    expect(s.configErrorCode).toBe("");
    expect(await svc.stop()).toBe(0);
  });

  it("POST /system/restore killed after the commit: settings and rules come back", async () => {
    await prepared();
    await killedAt("proxy.settings-committed", async (c) =>
      c.request("POST", "/api/v1/system/restore", { body: await changedBackup(c) }),
    );
    const { svc, console: c } = await start();
    const s = await checkUndone(c);
    expect(s.configErrorCode).toBe("probation.rolled_back_restart");
    expect(await ruleValues(c)).toEqual([KEPT_RULE.value]);
    expect(await svc.stop()).toBe(0);
  });

  it("killed after an undo was committed, before its rollback point went: undone once, later rules kept", async () => {
    await prepared();
    await killedAt(
      "proxy.probation-reverted",
      (c) => c.request("POST", "/api/v1/system/probation/revert", { body: {} }),
      async (c) => {
        // Settings and rules are committed one change at a time; the restore is the first
        // change of this run, so the point counts the undo's commit, not these.
        const r = await c.request("POST", "/api/v1/system/restore", {
          body: await changedBackup(c),
        });
        expect(r.status, r.text).toBe(200);
        expect(r.headers["x-gatehouse-probation"]).toBeDefined();
        await c.expect(200, "POST", "/api/v1/rules", { body: LATER_RULE });
      },
    );
    const { svc, console: c } = await start();
    await checkUndone(c);
    // The rule added during the probation was not part of the restore: it stays.
    expect((await ruleValues(c)).sort()).toEqual([KEPT_RULE.value, LATER_RULE.value].sort());
    expect(await svc.stop()).toBe(0);
  });
});

describe("a restart while a change waits for confirmation", () => {
  it("undoes it with the core running the previous configuration", async () => {
    await prepared();
    {
      const { svc, console: c } = await start();
      await coreOnline(c);
      const settings = await c.expect<Settings>(200, "GET", "/api/v1/settings");
      const r = await c.request("PUT", "/api/v1/settings", {
        body: { ...settings, proxyEnabled: false },
      });
      expect(r.status, r.text).toBe(200);
      await until(() => existsSync(probationFile()), "the rollback point is on disk");
      expect(configYaml()).toMatch(/^mode: direct$/m);
      await svc.kill();
    }
    const { svc, console: c } = await start();
    const s = await checkUndone(c);
    expect(s.configErrorCode).toBe("probation.rolled_back_restart");
    expect(await svc.stop()).toBe(0);
  });
});

describe("a crash of a service whose core was started on request", () => {
  it("starts the core again at the next start, in place of the one the crashed run left", async () => {
    {
      const { svc, console: c } = await start();
      const settings = await c.expect<Settings>(200, "GET", "/api/v1/settings");
      await c.expect(200, "PUT", "/api/v1/settings", {
        body: { ...settings, mixedPort: await freePort(), dnsPort: await freePort() },
      });
      await c.expect(200, "POST", "/api/v1/system/service", { body: { action: "start" } });
      await coreOnline(c);
      // Never stopped gracefully: only the start on request says the core should run.
      await svc.kill();
    }
    const pidFile = join(proxyDir(), "core", "core.pid");
    const leftover = Number(readFileSync(pidFile, "utf8").trim());
    expect(processGone(leftover)).toBe(false);
    const { svc, console: c } = await start();
    await coreOnline(c);
    await untilGone([leftover]);
    expect(Number(readFileSync(pidFile, "utf8").trim())).not.toBe(leftover);
    expect(await svc.stop()).toBe(0);
  });
});
