import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CoreManager } from "../../server/proxy/core/index.js";
import { PROBATION_FILE } from "../../server/proxy/domain/probation.js";
import { DEFAULT_SETTINGS, type Settings } from "../../server/proxy/types.js";
import {
  FakeCore,
  PASSWORD,
  sessionCookie,
  startProxy,
  type ProxyHarness,
} from "./proxy-api-harness.js";
import { freePort } from "./proxy-core-harness.js";

/** The shared fake mihomo executable (a real process with a controller and listeners). */
const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");
const HEADER = "x-gatehouse-probation";

const harnesses: ProxyHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    await h.request("POST", "/system/service", { body: { action: "stop" } }).catch(() => null);
    await h.close();
  }
});

/** The service with a stand-in core that counts restarts; `running` says whether it runs. */
async function withStandIn(running = true) {
  const core = new FakeCore();
  core.isRunning = running;
  let restarts = 0;
  const restart = core.restart.bind(core);
  core.restart = (input) => {
    restarts++;
    return restart(input);
  };
  const h = await startProxy({ core, probationCheckMs: 0 });
  harnesses.push(h);
  await h.setup();
  return { h, core, restarts: () => restarts };
}

async function put(h: ProxyHarness, patch: Partial<Settings>) {
  const current = (await h.request("GET", "/settings")).json as Settings;
  return h.request("PUT", "/settings", { body: { ...current, ...patch } });
}

const nowSeconds = (h: ProxyHarness) => Math.floor(h.clock.now() / 1000);

describe("a settings change that can cut the operator off", () => {
  it("answers X-Gatehouse-Probation with now + 60 s and shows the deadline in /status", async () => {
    const { h } = await withStandIn();
    const r = await put(h, { proxyEnabled: false });
    expect(r.status, r.text).toBe(200);
    expect(r.headers[HEADER]).toBe(String(nowSeconds(h) + 60));
    const status = (await h.request("GET", "/status")).json;
    expect(status.probation).toEqual({ deadline: nowSeconds(h) + 60, remainingSeconds: 60 });
    h.clock.advance(15_000);
    const banner = (await h.request("GET", "/system/probation")).json;
    expect(banner).toEqual({
      probation: { deadline: nowSeconds(h) + 45, remainingSeconds: 45 },
      notice: null,
    });
  });

  it("needs no confirmation while the core is stopped, nor for settings that cannot cut anyone off", async () => {
    const stopped = await withStandIn(false);
    const off = await put(stopped.h, { proxyEnabled: false });
    expect(off.status).toBe(200);
    expect(off.headers[HEADER]).toBeUndefined();
    expect((await stopped.h.request("GET", "/status")).json.probation).toBeNull();

    const { h } = await withStandIn(true);
    const harmless = await put(h, { testTimeoutMS: 4000, dnsPort: 1153 });
    expect(harmless.status).toBe(200);
    expect(harmless.headers[HEADER]).toBeUndefined();
    expect((await h.request("GET", "/status")).json.probation).toBeNull();
  });

  it("keeps a confirmed change past the deadline; a second confirm is 409", async () => {
    const { h, restarts } = await withStandIn();
    await put(h, { proxyEnabled: false });
    const ok = await h.request("POST", "/system/confirm", { body: {} });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ ok: true });
    expect((await h.request("GET", "/status")).json.probation).toBeNull();
    h.clock.advance(120_000);
    await h.service.probation.tick();
    expect((await h.request("GET", "/settings")).json.proxyEnabled).toBe(false);
    expect(restarts()).toBe(0);
    const again = await h.request("POST", "/system/confirm", { body: {} });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("probation.none");
    expect(existsSync(join(h.dataDir, "proxy", PROBATION_FILE))).toBe(false);
  });

  it("is not undone a second before the deadline, and is undone at it", async () => {
    const { h, core, restarts } = await withStandIn();
    await put(h, { proxyEnabled: false });
    h.clock.advance(59_000);
    await h.service.probation.tick();
    expect((await h.request("GET", "/settings")).json.proxyEnabled).toBe(false);
    h.clock.advance(1_000);
    await h.service.probation.tick();
    expect((await h.request("GET", "/settings")).json.proxyEnabled).toBe(true);
    expect(restarts()).toBe(1);
    expect(core.lastApplied?.settings.proxyEnabled).toBe(true);
    const status = (await h.request("GET", "/status")).json;
    expect(status.probation).toBeNull();
    expect(status.configErrorCode).toBe("probation.rolled_back");
    expect(status.configError).toMatch(/not confirmed within 60 s/);
    // The next change ends the notice.
    await put(h, { testTimeoutMS: 4500 });
    expect((await h.request("GET", "/status")).json.configErrorCode).toBe("");
  });

  it("is undone by the service's own deadline check, without anyone asking", async () => {
    const core = new FakeCore();
    core.isRunning = true;
    const h = await startProxy({ core, probationCheckMs: 10 });
    harnesses.push(h);
    await h.setup();
    await put(h, { proxyEnabled: false });
    // The check runs every 10 ms of real time, but only the service's clock decides: one made
    // here, surely before the deadline, leaves the change in place.
    await h.service.probation.tick();
    expect((await h.request("GET", "/settings")).json.proxyEnabled).toBe(false);
    h.clock.advance(60_000);
    await expect
      .poll(async () => (await h.request("GET", "/settings")).json.proxyEnabled, { timeout: 2000 })
      .toBe(true);
    expect((await h.request("GET", "/status")).json.configErrorCode).toBe("probation.rolled_back");
  });

  it("keeps the original rollback point through a second change, with a new minute", async () => {
    const { h } = await withStandIn();
    await put(h, { proxyEnabled: false });
    h.clock.advance(30_000);
    const second = await put(h, {
      proxyEnabled: true,
      gateway: "192.168.1.1",
      testTimeoutMS: 7000,
    });
    expect(second.status, second.text).toBe(200);
    expect(second.headers[HEADER]).toBe(String(nowSeconds(h) + 60));
    h.clock.advance(31_000);
    await h.service.probation.tick();
    // 61 s after the first change, 31 s after the second: the renewed minute still runs.
    expect((await h.request("GET", "/settings")).json.gateway).toBe("192.168.1.1");
    h.clock.advance(29_000);
    await h.service.probation.tick();
    const back = (await h.request("GET", "/settings")).json as Settings;
    expect(back).toEqual({ ...DEFAULT_SETTINGS, ...pick(back) });
    expect(back.gateway).toBe("");
    expect(back.proxyEnabled).toBe(true);
    expect(back.testTimeoutMS).toBe(DEFAULT_SETTINGS.testTimeoutMS);
  });

  it("undoes at once on POST /system/probation/revert, without a rollback notice; 409 when none waits", async () => {
    const { h, restarts } = await withStandIn();
    await put(h, { proxyEnabled: false });
    const undo = await h.request("POST", "/system/probation/revert", { body: {} });
    expect(undo.status, undo.text).toBe(200);
    expect((await h.request("GET", "/settings")).json.proxyEnabled).toBe(true);
    expect(restarts()).toBe(1);
    const status = (await h.request("GET", "/status")).json;
    expect(status.probation).toBeNull();
    expect(status.configErrorCode).toBe("");
    const none = await h.request("POST", "/system/probation/revert", { body: {} });
    expect(none.status).toBe(409);
    expect(none.json.code).toBe("probation.none");
  });

  it("puts a restore's subscriptions, rules and settings back when it is not confirmed", async () => {
    const { h } = await withStandIn();
    const rule = { type: "DOMAIN-SUFFIX", value: "kept.example", action: "DIRECT" };
    expect((await h.request("POST", "/rules", { body: rule })).status).toBe(200);
    const backup = (await h.request("GET", "/system/backup")).json;
    const changed = structuredClone(backup);
    changed.state.settings.proxyEnabled = false;
    changed.state.rules = [];
    const r = await h.request("POST", "/system/restore", { body: changed });
    expect(r.status, r.text).toBe(200);
    expect(r.headers[HEADER]).toBe(String(nowSeconds(h) + 60));
    expect((await h.request("GET", "/rules")).json.custom).toHaveLength(0);
    h.clock.advance(60_000);
    await h.service.probation.tick();
    expect((await h.request("GET", "/settings")).json.proxyEnabled).toBe(true);
    const rules = (await h.request("GET", "/rules")).json.custom as Array<{ value: string }>;
    expect(rules.map((x) => x.value)).toEqual(["kept.example"]);
  });

  it("undoes an unconfirmed change when the service restarts during its minute", async () => {
    const { h } = await withStandIn();
    await put(h, { proxyEnabled: false });
    const dataDir = h.dataDir;
    expect(existsSync(join(dataDir, "proxy", PROBATION_FILE))).toBe(true);
    harnesses.splice(harnesses.indexOf(h), 1);
    await h.close(false);
    const core = new FakeCore();
    const again = await startProxy({ core, dataDir, probationCheckMs: 0 });
    harnesses.push(again);
    expect(existsSync(join(dataDir, "proxy", PROBATION_FILE))).toBe(false);
    const login = await again.request("POST", "/auth/login", { body: { password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    again.cookie = sessionCookie(login);
    again.csrf = login.json.csrf;
    const settings = (await again.request("GET", "/settings")).json as Settings;
    expect(settings.proxyEnabled).toBe(true);
    const status = (await again.request("GET", "/status")).json;
    expect(status.configErrorCode).toBe("probation.rolled_back_restart");
    expect(status.probation).toBeNull();
  });
});

/** The settings a test did not touch, so the comparison names only the ones it did. */
function pick(s: Settings): Partial<Settings> {
  return { mixedPort: s.mixedPort, dnsPort: s.dnsPort };
}

describe("the rollback with a real core process", () => {
  it("restores the settings and the configuration file and restarts the core at the deadline", async () => {
    const h = await startProxy({
      coreBin: FAKE_CORE,
      controllerPort: await freePort(),
      probationCheckMs: 0,
    });
    harnesses.push(h);
    await h.setup();
    const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
    expect((await put(h, ports)).status).toBe(200);
    const started = await h.request("POST", "/system/service", { body: { action: "start" } });
    expect(started.status, started.text).toBe(200);
    const manager = h.service.ctx.core as CoreManager;
    const config = () => readFileSync(manager.configFile, "utf8");
    const pid = (manager.supervisor as { pid?: number }).pid;
    expect(pid).toBeTypeOf("number");
    expect(config()).toMatch(/^mode: rule$/m);

    const changed = await put(h, { proxyEnabled: false });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.headers[HEADER]).toBe(String(nowSeconds(h) + 60));
    expect(config()).toMatch(/^mode: direct$/m);

    h.clock.advance(60_000);
    await h.service.probation.tick();
    expect((await h.request("GET", "/settings")).json.proxyEnabled).toBe(true);
    expect(config()).toMatch(/^mode: rule$/m);
    const newPid = (manager.supervisor as { pid?: number }).pid;
    expect(newPid).toBeTypeOf("number");
    expect(newPid).not.toBe(pid);
    const status = (await h.request("GET", "/status")).json;
    expect(status.coreOnline).toBe(true);
    expect(status.configErrorCode).toBe("probation.rolled_back");
    expect(status.probation).toBeNull();
  });
});
