import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FeedSource } from "../../server/proxy/domain/refresher.js";
import { fetchSubscription } from "../../server/proxy/subscriptions/fetch.js";
import { parseSubscription } from "../../server/proxy/subscriptions/index.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";
import { createMihomoSim, startMixedListener } from "../fixtures/mihomo-sim/index.mjs";
import { startFeedServer, type FeedServer } from "../fixtures/feed-server.js";
import { startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { freePort, refusedPort } from "./proxy-core-harness.js";

const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

let h: ProxyHarness | null = null;
let feeds: FeedServer | null = null;
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  await h?.close();
  h = null;
  await feeds?.close();
  feeds = null;
  for (const close of closers.splice(0)) await close();
});

interface Call {
  url: string;
  proxy: { host: string; port: number } | undefined;
  outcome: string;
}

/**
 * The real download code, behind a stand-in for a firewall between the gateway and the feed
 * server: while `blocked`, a direct attempt is sent to a port where nothing listens (the
 * gateway's own connection is refused), while attempts through the core's mixed port go
 * where the URL says. Every attempt is recorded.
 */
function firewalled(closedPort: number) {
  const state = { blocked: true, calls: [] as Call[] };
  const source: FeedSource = {
    async fetch(url, options) {
      const direct = state.blocked && !options.proxy;
      const target = direct ? url.replace(/:\d+\//, `:${closedPort}/`) : url;
      try {
        const r = await fetchSubscription(target, options);
        state.calls.push({ url, proxy: options.proxy, outcome: "ok" });
        return r;
      } catch (err) {
        state.calls.push({ url, proxy: options.proxy, outcome: (err as { code: string }).code });
        throw err;
      }
    },
    parse: parseSubscription,
  };
  return { state, source };
}

async function serviceWithCore(source: FeedSource): Promise<{ mixedPort: number }> {
  h = await startProxy({ coreBin: FAKE_CORE, controllerPort: await freePort(), feeds: source });
  await h.setup();
  const mixedPort = await freePort();
  const put = await h.request("PUT", "/settings", {
    body: { ...DEFAULT_SETTINGS, mixedPort, dnsPort: await freePort() },
  });
  expect(put.status).toBe(200);
  return { mixedPort };
}

async function addFeed(): Promise<string> {
  const r = await h!.request("POST", "/subscriptions", {
    body: { name: "Feed", url: `${feeds!.url}/feed`, enabled: true, intervalHours: 0 },
  });
  expect(r.status).toBe(200);
  return r.json.id as string;
}

async function listed(id: string) {
  const list = await h!.request("GET", "/subscriptions");
  return (list.json as Array<Record<string, unknown>>).find((s) => s.id === id)!;
}

describe("a refresh the gateway cannot download directly", () => {
  it("is tried once more through the running core's mixed port, and succeeds there", async () => {
    feeds = await startFeedServer();
    feeds.setRoute("/feed", { feed: "clash.yml" });
    const fw = firewalled(await refusedPort());
    const { mixedPort } = await serviceWithCore(fw.source);
    const id = await addFeed();
    const start = await h!.request("POST", "/system/service", { body: { action: "start" } });
    expect(start.status).toBe(200);

    const r = await h!.request("POST", `/subscriptions/${id}/refresh`, { body: {} });
    expect(r.status).toBe(200);
    expect(fw.state.calls).toEqual([
      { url: `${feeds.url}/feed`, proxy: undefined, outcome: "subscription.refused" },
      {
        url: `${feeds.url}/feed`,
        proxy: { host: "127.0.0.1", port: mixedPort },
        outcome: "ok",
      },
    ]);
    // The feed server saw one request, and it came through the core's tunnel.
    expect(feeds.requests.map((q) => q.path)).toEqual(["/feed"]);
    const sub = await listed(id);
    expect(sub.nodeCount).toBeGreaterThan(0);
    expect(sub.lastError).toBe("");
  });

  it("keeps its nodes and says both attempts failed when the core cannot reach it either", async () => {
    feeds = await startFeedServer();
    feeds.setRoute("/feed", { feed: "clash.yml" });
    const fw = firewalled(await refusedPort());
    await serviceWithCore(fw.source);
    const id = await addFeed();
    expect(
      (await h!.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    expect((await h!.request("POST", `/subscriptions/${id}/refresh`, { body: {} })).status).toBe(
      200,
    );
    const nodes = (await listed(id)).nodeCount;
    await feeds.close();
    feeds = null;

    const r = await h!.request("POST", `/subscriptions/${id}/refresh`, { body: {} });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("subscription.both_failed");
    const sub = await listed(id);
    expect(sub.lastErrorCode).toBe("subscription.both_failed");
    expect(sub.lastError).toMatch(
      /^Direct download: The subscription server refused the connection/,
    );
    expect(sub.lastError).toContain("Through the proxy core:");
    expect(sub.lastErrorParams).toMatchObject({ direct_code: "subscription.refused" });
    expect(String((sub.lastErrorParams as Record<string, unknown>).proxied_code)).toMatch(
      /^subscription\./,
    );
    expect(sub.nodeCount).toBe(nodes);
  });

  it("is not tried again for an HTTP error status, nor without a running core", async () => {
    feeds = await startFeedServer();
    feeds.setRoute("/feed", { status: 404 });
    const fw = firewalled(await refusedPort());
    await serviceWithCore(fw.source);
    const id = await addFeed();
    // No core running: the refused direct attempt is the only one.
    const offline = await h!.request("POST", `/subscriptions/${id}/refresh`, { body: {} });
    expect(offline.json.code).toBe("subscription.refused");
    expect(fw.state.calls).toHaveLength(1);
    // A core runs, but the server answers 404 directly: that is its answer, not the network.
    expect(
      (await h!.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    fw.state.blocked = false;
    const r = await h!.request("POST", `/subscriptions/${id}/refresh`, { body: {} });
    expect(r.json).toMatchObject({ code: "subscription.fetch_status", params: { status: 404 } });
    expect(fw.state.calls).toHaveLength(2);
    expect(fw.state.calls[1].proxy).toBeUndefined();
  });
});

describe("fetchSubscription through an HTTP proxy", () => {
  it("asks for http URLs by absolute URI and tunnels https with CONNECT", async () => {
    feeds = await startFeedServer();
    feeds.setRoute("/feed", { feed: "clash.yml", gzip: true });
    const sim = createMihomoSim({ config: { mode: "direct" }, healthChecks: false });
    const mixed = await startMixedListener(sim, { host: "127.0.0.1", port: 0 });
    closers.push(
      () => mixed.close(),
      () => sim.close(),
    );
    const proxy = { host: "127.0.0.1", port: mixed.port };

    const plain = await fetchSubscription(`${feeds.url}/feed`, { proxy });
    const secure = await fetchSubscription(`${feeds.httpsUrl}/feed`, { proxy, ca: feeds.ca });
    expect(plain.body.length).toBeGreaterThan(0);
    expect(secure.body.equals(plain.body)).toBe(true);
    expect(feeds.requests.map((q) => [q.path, q.secure])).toEqual([
      ["/feed", false],
      ["/feed", true],
    ]);
    // Both went through the simulated core: it counted a connection for each.
    expect(sim.snapshot().totals.down).toBeGreaterThan(0);
  });
});
