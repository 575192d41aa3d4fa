import express from "express";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorHandler } from "../../server/http/errors.js";
import { PROXY_STATUS } from "../../server/proxy/error-status.js";
import type { CoreProxy } from "../../server/proxy/context.js";
import { sharedCoreReader } from "../../server/proxy/core/core-reader.js";
import { MihomoClient } from "../../server/proxy/core/mihomo-client.js";
import { labelChains } from "../../server/proxy/domain/core-names.js";
import { nodesRouter } from "../../server/proxy/routes/nodes.js";
import type { ProxyRouterDeps } from "../../server/proxy/routes/router-deps.js";
import { coreNodeName, nodeId } from "../../server/proxy/types.js";
import { FakeCore, FakeFeeds, startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { startLive, type LiveHarness } from "./proxy-core-harness.js";
import { StubController } from "./proxy-core-stub.js";

const A = "2f00b452053b30d98c0a41c9";
let live: LiveHarness | null = null;
let stub: StubController | null = null;
let proxy: ProxyHarness | null = null;
const servers: http.Server[] = [];
afterEach(async () => {
  await live?.close();
  await stub?.stop();
  await proxy?.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  live = null;
  stub = null;
  proxy = null;
});

async function listen(app: http.RequestListener): Promise<string> {
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The live routers wired to a stub controller that knows the core manager's secret. */
async function withStub(): Promise<{ h: LiveHarness; stub: StubController }> {
  stub = new StubController();
  live = await startLive({ controllerPort: await stub.start() });
  stub.secret = readFileSync(join(live.dir, "core", "secret"), "utf8").trim();
  return { h: live, stub };
}

const tokyo = coreNodeName(A, "🇯🇵 Tokyo");

describe("GET /connections through the core reader", () => {
  it("answers exactly the JSON the core's connections with chain labels make, as JSON in UTF-8", async () => {
    const { h, stub } = await withStub();
    h.store.addSubscription(A, [{ name: "🇯🇵 Tokyo", type: "ss" }]);
    h.store.subscriptions[0].name = "Provider A";
    stub.uploadTotal = 12;
    stub.downloadTotal = 34;
    stub.connections = Array.from({ length: 50 }, (_, i) => ({
      id: `c${i}`,
      metadata: { host: `h${i}.example`, destinationPort: "443" },
      upload: i,
      download: i * 10,
      start: "2026-01-01T00:00:00Z",
      chains: i % 2 ? [tokyo, "AUTO", "PROXY"] : ["DIRECT"],
      rule: "Match",
      rulePayload: "",
    }));
    const r = await h.request("GET", "/connections");
    expect(r.status).toBe(200);
    const client = new MihomoClient({ port: stub.port, secret: stub.secret });
    const expected = labelChains(await client.connections(), h.store.listSubscriptions());
    expect(r.text).toBe(JSON.stringify(expected));
    expect(r.json.connections[1].chainLabels[0]).toEqual({
      name: "🇯🇵 Tokyo",
      subscription: "Provider A",
    });
    const raw = await fetch(`${h.url}/api/v1/connections`);
    expect(raw.headers.get("content-type")).toBe("application/json; charset=utf-8");
    await raw.arrayBuffer();
  });

  it("answers 503 core.unreachable once the core is gone", async () => {
    const { h, stub } = await withStub();
    expect((await h.request("GET", "/connections")).status).toBe(200);
    await stub.stop();
    const r = await h.request("GET", "/connections");
    expect(r.status).toBe(503);
    expect(r.json.code).toBe("core.unreachable");
  });

  it("answers 500 when the reader fails mid-read, and the next request is answered", async () => {
    // A controller that holds its first answer until told.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let asked = 0;
    const port = Number(
      new URL(
        await listen((_req, res) => {
          asked++;
          void (asked === 1 ? held : Promise.resolve()).then(() => {
            res.writeHead(200, { "content-type": "application/json" });
            res.end(`{"downloadTotal":1,"uploadTotal":2,"connections":null}`);
          });
        }),
      ).port,
    );
    live = await startLive({ controllerPort: port });
    const h = live;
    const first = h.request("GET", "/connections");
    while (asked === 0) await new Promise((r) => setTimeout(r, 10));
    await sharedCoreReader().close();
    const failed = await first;
    expect(failed.status).toBe(500);
    expect(failed.json.code).toBe("server.internal");
    release();
    const next = await h.request("GET", "/connections");
    expect(next.status).toBe(200);
    expect(next.json).toEqual({ downloadTotal: 1, uploadTotal: 2, connections: [] });
  });
});

function history(delay: number): CoreProxy["history"] {
  return [{ time: "2026-01-01T00:00:00Z", delay }];
}

describe("GET /nodes live data", () => {
  it("reads the core's delays through the core reader", async () => {
    const { h, stub } = await withStub();
    const deps = h.ctx as ProxyRouterDeps;
    h.repos.subscriptions.create(A, {
      name: "Provider A",
      url: "http://feeds.test/a",
      enabled: true,
      intervalHours: 0,
    });
    const nodes = [
      { name: "🇯🇵 Tokyo", type: "ss", udp: false },
      { name: "Paris", type: "vmess" },
    ];
    await (await h.repos.snapshots.stage(A, nodes)).commit();
    stub.proxies = {
      [tokyo]: { name: tokyo, type: "Shadowsocks", udp: true, history: history(87.4) },
      [coreNodeName(A, "Paris")]: { name: "x", type: "Vmess", history: history(0) },
    };
    const app = express();
    app.use("/api/v1", nodesRouter(deps));
    app.use(errorHandler(() => undefined, PROXY_STATUS));
    const base = await listen(app);
    const list = (await (await fetch(`${base}/api/v1/nodes`)).json()) as Array<{
      id: string;
      delay: number | null;
      alive: boolean | null;
      udp: boolean;
    }>;
    expect(list.map((n) => [n.id, n.delay, n.alive, n.udp])).toEqual([
      [nodeId(A, "🇯🇵 Tokyo"), 87, true, true],
      [nodeId(A, "Paris"), 0, false, false],
    ]);
  });

  /** The service with a stand-in core whose `/proxies` can be held, and one subscription. */
  async function service() {
    const core = new FakeCore();
    const feeds = new FakeFeeds();
    proxy = await startProxy({ core, feeds });
    await proxy.setup();
    feeds.responses.set("http://feeds.test/a", JSON.stringify([{ name: "HK", type: "ss" }]));
    const sub = await proxy.request("POST", "/subscriptions", {
      body: { name: "A", url: "http://feeds.test/a" },
    });
    const id: string = sub.json.id;
    expect((await proxy.request("POST", `/subscriptions/${id}/refresh`)).status).toBe(200);
    const name = coreNodeName(id, "HK");
    const reads = { count: 0, gate: null as Promise<void> | null };
    const plain = core.client.proxies;
    core.client.proxies = async (timeoutMs?: number) => {
      reads.count++;
      if (reads.gate) await reads.gate;
      return plain(timeoutMs);
    };
    core.isRunning = true;
    const delay = async (): Promise<number | null> => {
      const r = await proxy?.request("GET", "/nodes");
      return (r?.json as Array<{ delay: number | null }>)[0].delay;
    };
    return { h: proxy, core, name, reads, delay };
  }

  it("answers from its copy while the core's /proxies is slow, and takes the new copy once it lands", async () => {
    const { h, core, name, reads, delay } = await service();
    core.proxies = { [name]: { name, type: "Shadowsocks", history: history(40) } };
    expect(await delay()).toBe(40);
    expect(reads.count).toBe(1);
    core.proxies = { [name]: { name, type: "Shadowsocks", history: history(90) } };
    let release: () => void = () => undefined;
    reads.gate = new Promise<void>((r) => (release = r));
    h.clock.advance(6000);
    // The copy is old: it is answered at once while the core is asked again, once.
    expect(await delay()).toBe(40);
    expect(await delay()).toBe(40);
    expect(reads.count).toBe(2);
    release();
    reads.gate = null;
    for (let i = 0; i < 50 && (await delay()) !== 90; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await delay()).toBe(90);
    expect(reads.count).toBe(2);
  });

  it("drops its copy when the core stops", async () => {
    const { core, name, delay } = await service();
    core.proxies = { [name]: { name, type: "Shadowsocks", history: history(40) } };
    expect(await delay()).toBe(40);
    core.isRunning = false;
    core.proxies = null; // and nothing answers on the controller port
    expect(await delay()).toBeNull();
  });
});
