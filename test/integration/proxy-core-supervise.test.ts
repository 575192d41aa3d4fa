import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { createCoreManager, type CoreManager } from "../../server/proxy/core/index.js";
import type { ProcessSupervisor } from "../../server/proxy/core/supervisor.js";
import { DEFAULT_SETTINGS, nodeId, type CoreInput } from "../../server/proxy/types.js";
import { freePort, startLive, waitFor } from "./proxy-core-harness.js";
import { statusOfKind, type DomainError } from "../../server/domain-errors.js";
import { PROXY_STATUS } from "../../server/proxy/error-status.js";

const A = "a".repeat(24);
/** The shared fake mihomo executable (test/fixtures/mihomo-sim behind it). */
const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");
const HK1 = {
  name: "HK 1",
  type: "ss",
  server: "hk1.example.net",
  port: 8388,
  cipher: "aes-128-gcm",
  password: "pw",
};
let dir = "";
let m: CoreManager | null = null;
const logs: string[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-sup-"));
  logs.length = 0;
});
afterEach(async () => {
  vi.useRealTimers();
  await m?.close();
  m = null;
  rmSync(dir, { recursive: true, force: true });
});

function input(selected = ""): CoreInput {
  return {
    settings: {
      ...DEFAULT_SETTINGS,
      selectionMode: selected ? "manual" : "auto",
      selectedNode: selected,
    },
    subscriptions: [{ id: A, name: "a", nodes: [HK1] }],
    rules: [],
  };
}

async function manager(): Promise<CoreManager> {
  m = createCoreManager({
    homeDir: join(dir, "core"),
    coreBin: FAKE_CORE,
    service: "process",
    unit: "gatehouse-mihomo.service",
    controllerPort: await freePort(),
    clock: new ManualClock(),
    log: (l) => logs.push(l),
    backoffBaseMs: 50,
    readyTimeoutMs: 10_000,
  });
  return m;
}

async function proxyNow(core: CoreManager): Promise<string> {
  return (await core.client.proxies(1000)).PROXY?.now ?? "";
}

describe("process supervision", () => {
  it("starts the core, applies the selection, and captures its log lines", async () => {
    const core = await manager();
    await core.start(input());
    expect(core.running()).toBe(true);
    expect(await core.client.version()).toBe("v1.19.2");
    expect(await proxyNow(core)).toBe("AUTO");
    // mihomo logs in logrus' text format: time="..." level=info msg="..."
    expect(
      logs.some((l) => /^core: time=.* level=info msg="RESTful API listening at/.test(l)),
    ).toBe(true);
  });

  it("restarts a killed core and re-applies the selection", async () => {
    const core = await manager();
    const target = nodeId(A, "HK 1");
    await core.start(input(target));
    expect(await proxyNow(core)).toBe(`[${A}] HK 1`);
    const sup = core.supervisor as ProcessSupervisor;
    const firstPid = sup.pid;
    process.kill(firstPid as number, "SIGKILL");
    await waitFor(() => sup.restarts === 1 && sup.pid !== firstPid, 10_000, "a restart");
    await waitFor(
      () => logs.includes("proxy core restarted; selection re-applied"),
      10_000,
      "re-apply",
    );
    expect(await proxyNow(core)).toBe(`[${A}] HK 1`);
    expect(core.running()).toBe(true);
  });

  it("manual mode with a removed node ends on REJECT", async () => {
    const core = await manager();
    await core.start(input(nodeId(A, "gone")));
    expect(await proxyNow(core)).toBe("REJECT");
    await core.applySelection(input());
    expect(await proxyNow(core)).toBe("AUTO");
  });

  it("stop stops without restarting; the controller is then unreachable", async () => {
    // Timers that run with the clock and can be run ahead: a restart the supervisor scheduled
    // for the stopped core would happen at once below.
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout"] });
    const core = await manager();
    await core.start(input());
    const sup = core.supervisor as ProcessSupervisor;
    await core.stop();
    expect(core.running()).toBe(false);
    await expect(core.client.version(500)).rejects.toThrow(/cannot be reached/);
    // Past the longest back-off (30 s).
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sup.restarts).toBe(0);
    expect(await sup.active()).toBe(false);
  });

  it("a -t failure on start answers 400 and does not start the core", async () => {
    const core = await manager();
    const bad: CoreInput = {
      ...input(),
      rules: [
        {
          id: "r".repeat(24),
          // Stored rules are validated; a bad CIDR reaching the core fails its -t check.
          type: "IP-CIDR",
          value: "10.0.0.300/8",
          action: "DIRECT",
          enabled: true,
        },
      ],
    };
    const err = await core.start(bad).catch((e: unknown) => e);
    expect(statusOfKind((err as DomainError).kind, PROXY_STATUS)).toBe(400);
    expect(core.running()).toBe(false);
    expect(core.configError).toMatch(/payloadRule error[\s\S]*test failed/);
  });

  it("apply while running reloads and keeps the selection", async () => {
    const core = await manager();
    await core.start(input(nodeId(A, "HK 1")));
    await core.apply(input());
    expect(await proxyNow(core)).toBe("AUTO");
  });
});

describe("POST /system/service with a real child core", () => {
  it("starts, restarts and stops the core; status follows", async () => {
    const h = await startLive({ coreBin: FAKE_CORE, controllerPort: await freePort() });
    try {
      h.store.addSubscription(A, [HK1]);
      h.store.settings.selectionMode = "manual";
      h.store.settings.selectedNode = nodeId(A, "HK 1");
      expect((await h.request("POST", "/system/service", { action: "start" })).json).toEqual({
        ok: true,
      });
      let s = await h.request("GET", "/status");
      expect(s.json).toMatchObject({
        coreOnline: true,
        coreInstalled: true,
        version: "v1.19.2",
        actualNode: nodeId(A, "HK 1"),
        selectedAvailable: true,
      });
      expect((await h.request("POST", "/system/service", { action: "restart" })).status).toBe(200);
      s = await h.request("GET", "/status");
      expect(s.json.actualNode).toBe(nodeId(A, "HK 1"));
      expect((await h.request("POST", "/system/service", { action: "stop" })).status).toBe(200);
      s = await h.request("GET", "/status");
      expect(s.json.coreOnline).toBe(false);
      expect(typeof s.json.coreError).toBe("string");
    } finally {
      await h.close();
    }
  });
});
