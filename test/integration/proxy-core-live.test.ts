import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { nodeId } from "../../server/proxy/types.js";
import { freePort, openSse, startLive, waitFor, type LiveHarness } from "./proxy-core-harness.js";
import { StubController } from "./proxy-core-stub.js";

const A = "a".repeat(24);
let h: LiveHarness | null = null;
let stub: StubController | null = null;
afterEach(async () => {
  await h?.close();
  await stub?.stop();
  h = null;
  stub = null;
});

const TUN_IFACES = () => ({
  gatehouse0: [
    {
      address: "198.18.0.1",
      netmask: "255.255.0.0",
      family: "IPv4" as const,
      mac: "00:00:00:00:00:00",
      internal: false,
      cidr: "198.18.0.1/16",
    },
  ],
});

/** The live routers wired to a stub controller that knows the manager's secret. */
async function withStub(opts: Parameters<typeof startLive>[0] = {}) {
  stub = new StubController();
  const port = await stub.start();
  h = await startLive({ controllerPort: port, ...opts });
  stub.secret = readFileSync(join(h.dir, "core", "secret"), "utf8").trim();
  return { h, stub };
}

describe("GET /status", () => {
  it("reports an online core, the node AUTO chose as a node id, and counts", async () => {
    const clock = new ManualClock();
    const { h, stub } = await withStub({ clock, options: { networkInterfaces: TUN_IFACES } });
    h.store.addSubscription(A, [
      { name: "HK/1", type: "ss" },
      { name: "JP", type: "ss" },
    ]);
    h.store.addSubscription("b".repeat(24), [{ name: "US", type: "ss" }], false);
    h.store.settings.tunEnabled = true;
    stub.proxies = {
      PROXY: { name: "PROXY", type: "Selector", now: "AUTO", all: ["AUTO", "REJECT"], history: [] },
      AUTO: { name: "AUTO", type: "URLTest", now: `[${A}] HK/1`, all: [], history: [] },
      [`[${A}] HK/1`]: { name: `[${A}] HK/1`, type: "Shadowsocks", history: [] },
    };
    clock.advance(61_500);
    const r = await h.request("GET", "/status");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      coreOnline: true,
      coreInstalled: false,
      version: "v1.19.2",
      uptimeSeconds: 61,
      nodeCount: 2,
      subscriptionCount: 2,
      configError: "",
      actualNode: nodeId(A, "HK/1"),
      selectedAvailable: true,
      tunActive: true,
    });
    expect(r.json.settings).toEqual(h.store.getSettings());
    expect("coreError" in r.json).toBe(false);
  });

  it("reports REJECT as not available and TUN inactive without its interface", async () => {
    const { h, stub } = await withStub({ options: { networkInterfaces: () => ({}) } });
    h.store.settings.tunEnabled = true;
    stub.proxies = {
      PROXY: { name: "PROXY", type: "Selector", now: "REJECT", all: ["REJECT"], history: [] },
    };
    const r = await h.request("GET", "/status");
    expect(r.json).toMatchObject({
      actualNode: "REJECT",
      selectedAvailable: false,
      tunActive: false,
    });
  });

  it("reports an offline core with coreError and no version", async () => {
    h = await startLive({ controllerPort: await freePort() });
    h.store.settings.tunEnabled = true;
    const r = await h.request("GET", "/status");
    expect(r.json).toMatchObject({
      coreOnline: false,
      version: "",
      actualNode: "",
      selectedAvailable: false,
      tunActive: false,
    });
    expect(r.json.coreError).toMatch(/cannot be reached/);
  });

  it("treats a refused secret as offline, not as running", async () => {
    const { h, stub } = await withStub();
    stub.secret = "someone-else";
    const r = await h.request("GET", "/status");
    expect(r.json.coreOnline).toBe(false);
    // Whoever answers without knowing our secret is another program on the controller port.
    expect(r.json.coreError).toMatch(`Port ${stub.port} is used by another program`);
    expect(r.json.coreErrorCode).toBe("core.port_in_use");
  });
});

describe("connections", () => {
  it("passes the core's object through with connections [] for null", async () => {
    const { h, stub } = await withStub();
    stub.uploadTotal = 5;
    stub.downloadTotal = 7;
    const r = await h.request("GET", "/connections");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ uploadTotal: 5, downloadTotal: 7, connections: [] });
    stub.connections = [{ id: "c1", metadata: { host: "x" }, upload: 1, download: 2 }];
    expect((await h.request("GET", "/connections")).json.connections).toHaveLength(1);
  });

  it("closes one and all connections", async () => {
    const { h, stub } = await withStub();
    expect((await h.request("DELETE", "/connections/c%201")).json).toEqual({ ok: true });
    expect((await h.request("DELETE", "/connections")).json).toEqual({ ok: true });
    expect(stub.closed).toEqual(["c 1", "*"]);
  });

  it("answers 503 when the core cannot be reached or refuses us", async () => {
    h = await startLive({ controllerPort: await freePort() });
    for (const [m, p] of [
      ["GET", "/connections"],
      ["DELETE", "/connections/x"],
      ["DELETE", "/connections"],
    ]) {
      const r = await h.request(m, p);
      expect(r.status).toBe(503);
      expect(typeof r.json.error).toBe("string");
    }
    await h.close();
    const s = await withStub();
    s.stub.secret = "other";
    expect((await s.h.request("GET", "/connections")).status).toBe(503);
  });
});

describe("GET /events", () => {
  it("sends metrics with rates from the totals, never negative, 0 first and offline", async () => {
    const clock = new ManualClock();
    const { h, stub } = await withStub({ clock, timings: { metricsIntervalMs: 30 } });
    // Each core query happens "2 s later" with 4000 B up and 10000 B down more.
    let step = 0;
    const totals = [
      [1000, 2000],
      [5000, 12_000],
      [9000, 22_000],
      [10, 20], // the core restarted: totals dropped
    ];
    stub.onConnections = () => {
      clock.advance(2000);
      [stub.uploadTotal, stub.downloadTotal] = totals[Math.min(step++, 3)];
    };
    const sse = openSse(`${h.url}/api/v1/events`);
    await waitFor(() => sse.events.length >= 4, 5000, "four metrics");
    expect(sse.contentType).toMatch(/text\/event-stream/);
    const m = sse.events.slice(0, 4).map((e) => {
      expect(e.event).toBe("metrics");
      return JSON.parse(e.data) as Record<string, unknown>;
    });
    expect(m[0]).toMatchObject({
      up: 0,
      down: 0,
      upTotal: 1000,
      downTotal: 2000,
      coreOnline: true,
    });
    expect(m[1]).toMatchObject({ up: 2000, down: 5000, upTotal: 5000, downTotal: 12_000 });
    expect(m[2]).toMatchObject({ up: 2000, down: 5000, connections: 0 });
    expect(m[3]).toMatchObject({ up: 0, down: 0, upTotal: 10, downTotal: 20 });
    expect(m[1].time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await stub.stop();
    await waitFor(
      () => sse.events.some((e) => JSON.parse(e.data || "{}").coreOnline === false),
      5000,
      "an offline sample",
    );
    const off = sse.events.map((e) => JSON.parse(e.data)).find((d) => d.coreOnline === false);
    expect(off).toMatchObject({ up: 0, down: 0, upTotal: 0, downTotal: 0, connections: 0 });
    sse.close();
  });

  it("sends expired and closes when the session is no longer valid", async () => {
    const { h } = await withStub({ timings: { metricsIntervalMs: 20 } });
    h.alive.add("s2");
    const sse = openSse(`${h.url}/api/v1/events`, { "x-test-session": "s2" });
    await waitFor(() => sse.events.length >= 1, 5000, "first metrics");
    h.alive.delete("s2");
    await sse.ended;
    expect(sse.events[sse.events.length - 1]).toEqual({ event: "expired", data: "" });
  });
});

describe("GET /logs", () => {
  it("passes log items, sends heartbeats, then expired when the session ends", async () => {
    const { h, stub } = await withStub({ timings: { heartbeatIntervalMs: 60 } });
    h.alive.add("s3");
    const sse = openSse(`${h.url}/api/v1/logs?level=info`, { "x-test-session": "s3" });
    await waitFor(() => stub.logListeners === 1, 5000, "the core log stream");
    stub.pushLog("info", "hello");
    stub.pushLog("warning", "second");
    await waitFor(() => sse.events.filter((e) => e.event === "log").length === 2, 5000, "logs");
    expect(
      sse.events
        .filter((e) => e.event === "log")
        .map((e) => JSON.parse(e.data) as { type: string; payload: string })
        .map(({ type, payload }) => ({ type, payload })),
    ).toEqual([
      { type: "info", payload: "hello" },
      { type: "warning", payload: "second" },
    ]);
    await waitFor(() => sse.events.some((e) => e.event === "heartbeat"), 5000, "a heartbeat");
    h.alive.delete("s3");
    await sse.ended;
    expect(sse.events[sse.events.length - 1].event).toBe("expired");
    await waitFor(() => stub.logListeners === 0, 5000, "the core stream to be closed");
  });

  it("sends disconnected with the error when the core's stream breaks", async () => {
    const { h, stub } = await withStub();
    const sse = openSse(`${h.url}/api/v1/logs`);
    await waitFor(() => stub.logListeners === 1, 5000, "the core log stream");
    stub.breakLogs();
    await sse.ended;
    const last = sse.events[sse.events.length - 1];
    expect(last.event).toBe("disconnected");
    expect(JSON.parse(last.data).error).toMatch(/broke off/);
  });

  it("sends disconnected at once when the core is unreachable, and 400 for a bad level", async () => {
    h = await startLive({ controllerPort: await freePort() });
    const sse = openSse(`${h.url}/api/v1/logs`);
    await sse.ended;
    expect(sse.events.map((e) => e.event)).toEqual(["disconnected"]);
    expect((await h.request("GET", "/logs?level=loud")).status).toBe(400);
  });
});
