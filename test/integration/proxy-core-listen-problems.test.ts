import net from "node:net";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CoreManager } from "../../server/proxy/core/index.js";
import { DEFAULT_SETTINGS, type Settings } from "../../server/proxy/types.js";
import { startProxy, type ProxyHarness, type Reply } from "./proxy-api-harness.js";
import { freePort } from "./proxy-core-harness.js";

/** The shared fake mihomo executable: it really listens on the mixed port, or says why not. */
const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

let h: ProxyHarness | null = null;
const holders: net.Server[] = [];

afterEach(async () => {
  await h?.request("POST", "/system/service", { body: { action: "stop" } }).catch(() => undefined);
  await h?.close();
  h = null;
  for (const s of holders.splice(0)) await closeServer(s);
});

function closeServer(s: net.Server): Promise<void> {
  return new Promise((r) => (s.listening ? s.close(() => r()) : r()));
}

/** Another program on 127.0.0.1:port (another Clash on its mixed port, say). */
async function hold(port: number): Promise<net.Server> {
  const s = net.createServer((sock) => sock.destroy());
  await new Promise<void>((r) => s.listen(port, "127.0.0.1", r));
  holders.push(s);
  return s;
}

/** The service with the fake core, its mixed port saved as `mixedPort` while that was free. */
async function serviceOn(mixedPort: number): Promise<ProxyHarness> {
  h = await startProxy({ coreBin: FAKE_CORE, controllerPort: await freePort() });
  await h.setup();
  const saved = await putSettings({ mixedPort });
  expect(saved.status).toBe(200);
  return h;
}

function putSettings(patch: Partial<Settings>): Promise<Reply> {
  return h!.request("PUT", "/settings", { body: { ...DEFAULT_SETTINGS, ...patch } });
}

async function status(): Promise<Reply["json"]> {
  const r = await h!.request("GET", "/status");
  expect(r.status).toBe(200);
  return r.json;
}

/** Polls /status until `check` holds: the core's lines reach the service on their own time. */
async function statusWhen(check: (s: Reply["json"]) => boolean, what: string) {
  const end = Date.now() + 5000;
  for (;;) {
    const s = await status();
    if (check(s)) return s;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Whether something answers TCP connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const sock = net.connect(port, "127.0.0.1");
    sock.once("connect", () => (sock.destroy(), done(true)));
    sock.once("error", () => done(false));
  });
}

const core = () => h!.service.ctx.core as CoreManager;

describe("a saved port another program holds when the core starts", () => {
  it("keeps the core online and lists the port as core.port_in_use in /status", async () => {
    const port = await freePort();
    await serviceOn(port);
    await hold(port);
    const started = await h!.request("POST", "/system/service", { body: { action: "start" } });
    expect(started.status).toBe(200);

    const s = await statusWhen((x) => x.listenProblems.length > 0, "the listen problem");
    expect(s.coreOnline).toBe(true);
    expect(s.listenProblems).toEqual([
      { code: "core.port_in_use", port, address: "127.0.0.1", listener: "mixed", protocol: "tcp" },
    ]);
    // The simulator says it the way mihomo does (Go's error, not Node's).
    expect(core().supervisor.runOutput().join("\n")).toContain(
      `Start Mixed(http+socks) server error: listen tcp 127.0.0.1:${port}: bind: address already in use`,
    );
  });

  it("clears the problem when a reload after the port is freed binds it", async () => {
    const port = await freePort();
    await serviceOn(port);
    const holder = await hold(port);
    expect(
      (await h!.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    await statusWhen((x) => x.listenProblems.length === 1, "the listen problem");

    await closeServer(holder);
    // Any saved change reloads the core's configuration; the failed listener is tried again.
    expect((await putSettings({ mixedPort: port, testTimeoutMS: 4000 })).status).toBe(200);
    const s = await statusWhen((x) => x.listenProblems.length === 0, "the problem to clear");
    expect(s.coreOnline).toBe(true);
    expect(await accepts(port)).toBe(true);
    expect(core().supervisor.runOutput().join("\n")).toContain(
      `Mixed(http+socks) proxy listening at: 127.0.0.1:${port}`,
    );
  });

  it("clears the problem when the core restarts after the port is freed", async () => {
    const port = await freePort();
    await serviceOn(port);
    const holder = await hold(port);
    expect(
      (await h!.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    await statusWhen((x) => x.listenProblems.length === 1, "the listen problem");

    await closeServer(holder);
    const restarted = await h!.request("POST", "/system/service", { body: { action: "restart" } });
    expect(restarted.status).toBe(200);
    await statusWhen(
      () =>
        core()
          .supervisor.runOutput()
          .some((l) => l.includes("proxy listening at")),
      "the new run to listen",
    );
    const s = await status();
    expect(s.coreOnline).toBe(true);
    expect(s.listenProblems).toEqual([]);
    expect(await accepts(port)).toBe(true);
  });

  it("lists nothing while the core is stopped, and nothing when the port was free", async () => {
    const port = await freePort();
    await serviceOn(port);
    const holder = await hold(port);
    expect(
      (await h!.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    await statusWhen((x) => x.listenProblems.length === 1, "the listen problem");
    expect((await h!.request("POST", "/system/service", { body: { action: "stop" } })).status).toBe(
      200,
    );
    expect((await status()).listenProblems).toEqual([]);

    await closeServer(holder);
    expect(
      (await h!.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    await statusWhen(
      () =>
        core()
          .supervisor.runOutput()
          .some((l) => l.includes("proxy listening at")),
      "the core to listen",
    );
    expect((await status()).listenProblems).toEqual([]);
  });
});
