import { afterEach, describe, expect, it } from "vitest";
import { coreNodeName, nodeId, providerName } from "../../server/proxy/types.js";
import { FakeCore, FakeFeeds, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

let h: ProxyHarness;
let core: FakeCore;
let feeds: FakeFeeds;
afterEach(async () => h?.close());

/** Two subscriptions that both hold a node called "HK 01". */
async function start(): Promise<{ a: string; b: string }> {
  core = new FakeCore();
  feeds = new FakeFeeds();
  h = await startProxy({ core, feeds });
  await h.setup();
  const ids: string[] = [];
  for (const [name, url, list] of [
    ["A", "http://feeds.test/a", ["HK 01", "JP/02"]],
    ["B", "http://feeds.test/b", ["HK 01"]],
  ] as const) {
    feeds.responses.set(
      url,
      JSON.stringify(
        list.map((n, i) => ({
          name: n,
          type: i ? "vmess" : "ss",
          server: "10.1.1.1",
          port: 443,
          password: "secret",
          udp: true,
        })),
      ),
    );
    const r = await h.request("POST", "/subscriptions", { body: { name, url } });
    ids.push(r.json.id);
    expect((await h.request("POST", `/subscriptions/${r.json.id}/refresh`)).status).toBe(200);
  }
  return { a: ids[0], b: ids[1] };
}

describe("GET /nodes", () => {
  it("lists nodes without live data when the core is down, with no credentials or servers", async () => {
    const { a, b } = await start();
    const r = await h.request("GET", "/nodes");
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      {
        id: nodeId(a, "HK 01"),
        name: "HK 01",
        subscriptionID: a,
        subscriptionName: "A",
        type: "ss",
        udp: true,
        delay: null,
        alive: null,
        selected: false,
      },
      {
        id: `${a}/sub-${a}/JP/02`,
        name: "JP/02",
        subscriptionID: a,
        subscriptionName: "A",
        type: "vmess",
        udp: true,
        delay: null,
        alive: null,
        selected: false,
      },
      {
        id: nodeId(b, "HK 01"),
        name: "HK 01",
        subscriptionID: b,
        subscriptionName: "B",
        type: "ss",
        udp: true,
        delay: null,
        alive: null,
        selected: false,
      },
    ]);
    expect(r.text).not.toContain("secret");
    expect(r.text).not.toContain("10.1.1.1");
  });

  it("takes delay, alive and udp from the core's history, matched per subscription", async () => {
    const { a, b } = await start();
    core.proxies = {
      [coreNodeName(a, "HK 01")]: {
        type: "Shadowsocks",
        name: coreNodeName(a, "HK 01"),
        udp: false,
        history: [
          { time: "t", delay: 40 },
          { time: "t", delay: 120 },
        ],
      },
      [coreNodeName(b, "HK 01")]: {
        type: "Shadowsocks",
        name: coreNodeName(b, "HK 01"),
        udp: true,
        history: [{ time: "t", delay: 0 }],
      },
    };
    const r = await h.request("GET", "/nodes");
    const [a1, a2, b1] = r.json;
    expect([a1.delay, a1.alive, a1.udp]).toEqual([120, true, false]);
    expect([a2.delay, a2.alive, a2.udp]).toEqual([null, null, true]);
    expect([b1.delay, b1.alive, b1.udp]).toEqual([0, false, true]);
  });

  it("leaves out nodes of disabled subscriptions", async () => {
    const { a, b } = await start();
    await h.request("PUT", `/subscriptions/${b}`, {
      body: { name: "B", url: "http://feeds.test/b", enabled: false },
    });
    const r = await h.request("GET", "/nodes");
    expect(r.json.map((n: { subscriptionID: string }) => n.subscriptionID)).toEqual([a, a]);
  });
});

describe("POST /nodes/select", () => {
  it("selects exactly one of two same-named nodes and applies it", async () => {
    const { a, b } = await start();
    const r = await h.request("POST", "/nodes/select", {
      body: { mode: "manual", id: nodeId(b, "HK 01") },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
    const nodes = (await h.request("GET", "/nodes")).json;
    expect(
      nodes.filter((n: { selected: boolean }) => n.selected).map((n: { id: string }) => n.id),
    ).toEqual([nodeId(b, "HK 01")]);
    expect(core.selections.at(-1)?.settings).toMatchObject({
      selectionMode: "manual",
      selectedNode: nodeId(b, "HK 01"),
    });
    const settings = (await h.request("GET", "/settings")).json;
    expect(settings).toMatchObject({ selectionMode: "manual", selectedNode: nodeId(b, "HK 01") });
    expect(nodeId(a, "HK 01")).not.toBe(nodeId(b, "HK 01"));
    const auto = await h.request("POST", "/nodes/select", { body: { mode: "auto" } });
    expect(auto.status).toBe(200);
    expect((await h.request("GET", "/settings")).json.selectionMode).toBe("auto");
    expect(
      (await h.request("GET", "/nodes")).json.some((n: { selected: boolean }) => n.selected),
    ).toBe(false);
  });

  it("answers 400 for a bad mode, an unknown id, or a node of a disabled subscription", async () => {
    const { b } = await start();
    expect((await h.request("POST", "/nodes/select", { body: { mode: "fastest" } })).status).toBe(
      400,
    );
    expect(
      (await h.request("POST", "/nodes/select", { body: { mode: "manual", id: "x/y/z" } })).status,
    ).toBe(400);
    expect((await h.request("POST", "/nodes/select", { body: { mode: "manual" } })).status).toBe(
      400,
    );
    await h.request("PUT", `/subscriptions/${b}`, {
      body: { name: "B", url: "http://feeds.test/b", enabled: false },
    });
    const r = await h.request("POST", "/nodes/select", {
      body: { mode: "manual", id: nodeId(b, "HK 01") },
    });
    expect(r.status).toBe(400);
    expect((await h.request("GET", "/settings")).json.selectionMode).toBe("auto");
  });

  it("saves the selection when a stopped core cannot take it, but reports a running core's failure", async () => {
    const { a } = await start();
    core.failSelection = "connect ECONNREFUSED";
    const r = await h.request("POST", "/nodes/select", {
      body: { mode: "manual", id: nodeId(a, "HK 01") },
    });
    expect(r.status).toBe(200);
    expect((await h.request("GET", "/settings")).json.selectedNode).toBe(nodeId(a, "HK 01"));
    core.isRunning = true;
    const failed = await h.request("POST", "/nodes/select", { body: { mode: "auto" } });
    expect(failed.status).toBe(400);
  });
});

describe("POST /nodes/test", () => {
  it("tests each node through its own provider and answers per id", async () => {
    const { a, b } = await start();
    core.isRunning = true;
    core.delays.set(coreNodeName(a, "HK 01"), 88);
    core.delays.set(coreNodeName(b, "HK 01"), new Error("Timeout"));
    const r = await h.request("POST", "/nodes/test", {
      body: { ids: [nodeId(a, "HK 01"), nodeId(b, "HK 01")] },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      [nodeId(a, "HK 01")]: { delay: 88, error: "" },
      [nodeId(b, "HK 01")]: { delay: 0, error: "Timeout" },
    });
    expect(core.healthchecks.map((c) => c.provider).sort()).toEqual(
      [providerName(a), providerName(b)].sort(),
    );
    expect(core.healthchecks[0]).toMatchObject({
      url: "https://www.gstatic.com/generate_204",
      timeoutMs: 5000,
    });
  });

  it("answers 400 for an empty list, more than 500 ids, or an unknown id", async () => {
    const { a } = await start();
    expect((await h.request("POST", "/nodes/test", { body: { ids: [] } })).status).toBe(400);
    const many = Array.from({ length: 501 }, () => nodeId(a, "HK 01"));
    expect((await h.request("POST", "/nodes/test", { body: { ids: many } })).status).toBe(400);
    expect(
      (await h.request("POST", "/nodes/test", { body: { ids: [nodeId(a, "nope")] } })).status,
    ).toBe(400);
    expect(core.healthchecks).toEqual([]);
  });

  it("answers 503 with one sentence when no core runs, and tests nothing", async () => {
    const { a } = await start();
    const r = await h.request("POST", "/nodes/test", { body: { ids: [nodeId(a, "HK 01")] } });
    expect(r.status).toBe(503);
    expect(r.json).toEqual({
      error: "Start the proxy core first: latency tests go through it, and it is not running",
      code: "node.test_needs_core",
    });
    expect(core.healthchecks).toEqual([]);
    // Unknown ids are still refused first, as with a core.
    const unknown = await h.request("POST", "/nodes/test", { body: { ids: [nodeId(a, "x")] } });
    expect(unknown.status).toBe(400);
  });

  it("answers 503 core.unreachable when the core should run but does not answer", async () => {
    const { a } = await start();
    core.isRunning = true;
    const answers = core.client.version;
    core.client.version = () => Promise.reject(new Error("connect ECONNREFUSED"));
    try {
      const r = await h.request("POST", "/nodes/test", { body: { ids: [nodeId(a, "HK 01")] } });
      expect(r.status).toBe(503);
      expect(r.json.code).toBe("core.unreachable");
      expect(core.healthchecks).toEqual([]);
    } finally {
      core.client.version = answers;
    }
  });

  it("runs at most 8 tests at once and ends a hung test at testTimeoutMS + 2000", async () => {
    const feedNodes = Array.from({ length: 20 }, (_, i) => ({ name: `n${i}`, type: "ss" }));
    core = new FakeCore();
    feeds = new FakeFeeds();
    h = await startProxy({ core, feeds });
    await h.setup();
    feeds.responses.set("http://feeds.test/many", JSON.stringify(feedNodes));
    const id = (
      await h.request("POST", "/subscriptions", {
        body: { name: "M", url: "http://feeds.test/many" },
      })
    ).json.id;
    await h.request("POST", `/subscriptions/${id}/refresh`);
    const settings = (await h.request("GET", "/settings")).json;
    await h.request("PUT", "/settings", { body: { ...settings, testTimeoutMS: 100 } });
    for (let i = 0; i < 20; i++) core.delays.set(coreNodeName(id, `n${i}`), i === 3 ? -1 : 10 + i);
    core.isRunning = true;
    const started = Date.now();
    const r = await h.request("POST", "/nodes/test", {
      body: { ids: feedNodes.map((n) => nodeId(id, n.name)) },
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toHaveLength(20);
    expect(r.json[nodeId(id, "n3")]).toEqual({ delay: 0, error: expect.any(String) });
    expect(r.json[nodeId(id, "n19")]).toEqual({ delay: 29, error: "" });
    expect(core.maxInFlight).toBe(8);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect(elapsed).toBeLessThan(4000);
  });
});
