import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { createCoreManager, type CoreManager } from "../../server/proxy/core/index.js";
import type { ProcessSupervisor } from "../../server/proxy/core/supervisor.js";
import { DEFAULT_SETTINGS, type CoreInput } from "../../server/proxy/types.js";
import { asManager, freePort, startLive, type LiveHarness } from "./proxy-core-harness.js";
import { statusOfKind, type DomainError } from "../../server/domain-errors.js";
import { PROXY_STATUS } from "../../server/proxy/error-status.js";

/** Polls an async check until it holds. */
async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The shared fake mihomo executable. */
const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

let h: LiveHarness | null = null;
let m: CoreManager | null = null;
let dir = "";
const holders: Array<net.Server | http.Server> = [];

afterEach(async () => {
  await h?.close();
  h = null;
  await m?.close();
  m = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
  for (const s of holders.splice(0)) {
    if (s instanceof http.Server) s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Another program on 127.0.0.1:port that takes connections and drops them. */
async function holdRaw(port: number): Promise<net.Server> {
  const s = net.createServer((sock) => sock.destroy());
  await new Promise<void>((r) => s.listen(port, "127.0.0.1", r));
  holders.push(s);
  return s;
}

/** Another controller (another mihomo with its own secret) answering on 127.0.0.1:port. */
async function holdController(port: number): Promise<http.Server> {
  const s = http.createServer((_req, res) => {
    res.writeHead(401, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ message: "Unauthorized" }));
  });
  await new Promise<void>((r) => s.listen(port, "127.0.0.1", r));
  holders.push(s);
  return s;
}

function input(): CoreInput {
  return { settings: { ...DEFAULT_SETTINGS }, subscriptions: [], rules: [] };
}

function sentence(port: number): RegExp {
  return new RegExp(`^Port ${port} is used by another program`);
}

/** A core manager with the fake core whose own port check is switched off (to test the rest). */
function managerWithoutPrecheck(port: number): CoreManager {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-port-"));
  m = createCoreManager({
    homeDir: join(dir, "core"),
    coreBin: FAKE_CORE,
    service: "process",
    unit: "gatehouse-mihomo.service",
    controllerPort: port,
    clock: new ManualClock(),
    log: () => undefined,
    backoffBaseMs: 50,
    readyTimeoutMs: 10_000,
    portTaken: async () => false,
  });
  return m;
}

describe("a controller port held by another program", () => {
  it("refuses to start the core, names the port, and the status says so too", async () => {
    const port = await freePort();
    await holdRaw(port);
    h = await startLive({ coreBin: FAKE_CORE, controllerPort: port });
    const r = await h.request("POST", "/system/service", { action: "start" });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(sentence(port));
    expect(r.json).toMatchObject({ code: "core.port_in_use", params: { port } });
    // Nothing was started behind the refusal.
    expect((asManager(h.core).supervisor as ProcessSupervisor).pid).toBeUndefined();
    expect(h.core.running()).toBe(false);

    const s = await h.request("GET", "/status");
    expect(s.json).toMatchObject({
      coreOnline: false,
      controllerPort: port,
      configErrorCode: "core.port_in_use",
    });
    expect(s.json.configError).toMatch(sentence(port));
    expect(JSON.stringify(s.json)).not.toMatch(/Unauthorized|not installed/);
  });

  it("starts once the other program has gone, and the problem is no longer reported", async () => {
    const port = await freePort();
    const holder = await holdRaw(port);
    h = await startLive({ coreBin: FAKE_CORE, controllerPort: port });
    expect((await h.request("POST", "/system/service", { action: "start" })).status).toBe(400);
    holders.splice(holders.indexOf(holder), 1);
    await new Promise((r) => holder.close(r));
    const r = await h.request("POST", "/system/service", { action: "start" });
    expect(r.status, r.text).toBe(200);
    const s = await h.request("GET", "/status");
    expect(s.json).toMatchObject({ coreOnline: true, configError: "", configErrorCode: "" });
  });

  it("reads a controller that answers 401 as another program, in the status and at start", async () => {
    const port = await freePort();
    await holdController(port);
    h = await startLive({ coreBin: FAKE_CORE, controllerPort: port });
    const s = await h.request("GET", "/status");
    expect(s.json.coreOnline).toBe(false);
    expect(s.json.coreError).toMatch(sentence(port));
    expect(s.json.coreErrorCode).toBe("core.port_in_use");

    // Past the port check (as when the other program came up in between), the 401 still
    // names the port rather than "Unauthorized", and the core started for nothing is stopped.
    const core = managerWithoutPrecheck(port);
    const err = await core.start(input()).then(
      () => null,
      (e: unknown) => e as DomainError,
    );
    expect(err && statusOfKind(err.kind, PROXY_STATUS)).toBe(400);
    expect(err?.message).toMatch(sentence(port));
    expect(err).toMatchObject({ code: "core.port_in_use", params: { port } });
    expect(core.running()).toBe(false);
    expect(await core.supervisor.active()).toBe(false);
    expect(core.configErrorCode).toBe("core.port_in_use");
  });

  it("recognises the core's own 'address already in use' line when the holder does not speak HTTP", async () => {
    const port = await freePort();
    const holder = await holdRaw(port);
    const core = managerWithoutPrecheck(port);
    const started = Date.now();
    const err = await core.start(input()).then(
      () => null,
      (e: unknown) => e as { message: string; code: string },
    );
    expect(err?.message).toMatch(sentence(port));
    expect(err?.code).toBe("core.port_in_use");
    // Found from the core's output, well before the 10 s readiness deadline.
    expect(Date.now() - started).toBeLessThan(8000);
    expect(await core.supervisor.active()).toBe(false);

    // The earlier run's line is not held against the next one once the port is free.
    holders.splice(holders.indexOf(holder), 1);
    await new Promise((r) => holder.close(r));
    await core.start(input());
    expect(await core.client.version(1000)).toBe("v1.19.2");
    expect(core.configError).toBe("");
  });

  it("stops a core an earlier run left running (it knows our secret) instead of naming the port", async () => {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), "gatehouse-port-"));
    const make = () =>
      createCoreManager({
        homeDir: join(dir, "core"),
        coreBin: FAKE_CORE,
        service: "process",
        unit: "gatehouse-mihomo.service",
        controllerPort: port,
        clock: new ManualClock(),
        log: () => undefined,
        readyTimeoutMs: 10_000,
      });
    // The earlier run: its configuration and secret are in the home dir, and its core (started
    // as that run's supervisor did, pid file included) outlived it.
    const earlier = make();
    await earlier.apply(input());
    await earlier.close();
    const home = join(dir, "core");
    const leftover = spawn(FAKE_CORE, ["-d", home, "-f", join(home, "config.yaml")], {
      stdio: "ignore",
    });
    const gone = new Promise((r) => leftover.once("exit", r));
    writeFileSync(join(home, "core.pid"), `${leftover.pid}\n`);
    await waitFor(
      () =>
        earlier.client.version(500).then(
          () => true,
          () => false,
        ),
      10_000,
    );

    m = make();
    await m.start(input());
    await gone;
    expect(await m.client.version(1000)).toBe("v1.19.2");
    expect((m.supervisor as ProcessSupervisor).pid).not.toBe(leftover.pid);
  });

  it("never stops a process the pid file names unless it runs this home dir's core", async () => {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), "gatehouse-port-"));
    const home = join(dir, "core");
    const make = () =>
      createCoreManager({
        homeDir: home,
        coreBin: FAKE_CORE,
        service: "process",
        unit: "gatehouse-mihomo.service",
        controllerPort: port,
        clock: new ManualClock(),
        log: () => undefined,
        readyTimeoutMs: 10_000,
      });
    const earlier = make();
    await earlier.apply(input());
    await earlier.close();
    const leftover = spawn(FAKE_CORE, ["-d", home, "-f", join(home, "config.yaml")], {
      stdio: "ignore",
    });
    const bystander = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      // The pid file names an unrelated process (a recycled pid, say).
      writeFileSync(join(home, "core.pid"), `${bystander.pid}\n`);
      await waitFor(
        () =>
          earlier.client.version(500).then(
            () => true,
            () => false,
          ),
        10_000,
      );
      m = make();
      const err = await m.start(input()).then(
        () => null,
        (e: unknown) => e as { code: string },
      );
      expect(err?.code).toBe("core.port_in_use");
      expect(bystander.exitCode).toBeNull();
      expect(bystander.signalCode).toBeNull();
    } finally {
      bystander.kill("SIGKILL");
      leftover.kill("SIGKILL");
    }
  });
});
