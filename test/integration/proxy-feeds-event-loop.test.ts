import { afterEach, describe, expect, it } from "vitest";
import type { Reply } from "./proxy-api-harness.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";
import { startFeedServer, type FeedServer } from "../fixtures/feed-server.js";
import { fetchSubscription, ParsePool } from "../../server/proxy/subscriptions/index.js";

let h: ProxyHarness | null = null;
let feeds: FeedServer | null = null;
let pool: ParsePool | null = null;
afterEach(async () => {
  await h?.close();
  await feeds?.close();
  await pool?.close();
  h = feeds = pool = null;
});

const GOOD = `proxies:
  - {name: "HK 01", type: ss, server: 10.0.0.1, port: 8388, cipher: aes-128-gcm, password: pw}
  - {name: "JP 02", type: trojan, server: 10.0.0.2, port: 443, password: pw}
`;

/** The reproduction: 112 kB, 16,000 aliases of one node; quadratic to resolve naively. */
const ALIASES =
  "proxies:\n  - &a {name: n, type: ss, server: h.example, port: 1, cipher: aes-128-gcm, password: p}\n" +
  "  - *a\n".repeat(16_000);

/** Nine levels of ten aliases each: 10^9 values once expanded, from 300 bytes of text. */
function laughs(): string {
  const lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let i = 1; i <= 9; i++) {
    lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(", ")}]`);
  }
  lines.push(
    "proxies:",
    "  - {name: x, type: ss, server: h.example, port: 1, cipher: aes-128-gcm,",
  );
  lines.push("     password: p, extra: *l9}");
  return lines.join("\n") + "\n";
}

/** A valid 0.6 MB document only the general YAML library reads (the tags keep it there). */
function slowDocument(): string {
  const lines = ["proxies:"];
  for (let i = 0; i < 6_000; i++) {
    lines.push(`  - name: !!str node ${i}`, "    type: ss", `    server: s${i}.example.net`);
    lines.push("    port: 443", "    cipher: aes-128-gcm", `    password: pw${i}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * Runs `refresh` while asking the service for its status every 20 ms, and a 20 ms timer
 * measures how late the event loop runs; returns the refresh reply and the worst delays.
 */
async function refreshWhileProbing(
  service: ProxyHarness,
  refresh: () => Promise<Reply>,
): Promise<{ reply: Reply; slowestStatusMs: number; worstLagMs: number; probes: number }> {
  let done = false;
  let worstLagMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worstLagMs = Math.max(worstLagMs, now - last - 20);
    last = now;
  }, 20);
  let slowestStatusMs = 0;
  let probes = 0;
  const prober = (async () => {
    while (!done) {
      const t0 = performance.now();
      const r = await service.request("GET", "/status");
      expect(r.status).toBe(200);
      slowestStatusMs = Math.max(slowestStatusMs, performance.now() - t0);
      probes++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const reply = await refresh();
    return { reply, slowestStatusMs, worstLagMs, probes };
  } finally {
    done = true;
    clearInterval(timer);
    await prober;
  }
}

async function subscribeAndRefresh(service: ProxyHarness, url: string): Promise<string> {
  await service.setup();
  const created = await service.request("POST", "/subscriptions", {
    body: { name: "Feed", url },
  });
  expect(created.status).toBe(200);
  const id = created.json.id as string;
  const ok = await service.request("POST", `/subscriptions/${id}/refresh`);
  expect(ok.status, ok.text).toBe(200);
  return id;
}

async function expectPreviousNodes(service: ProxyHarness, id: string, error: string) {
  const nodes = (await service.request("GET", "/nodes")).json as Array<{ name: string }>;
  expect(nodes.map((n) => n.name)).toEqual(["HK 01", "JP 02"]);
  const [item] = (await service.request("GET", "/subscriptions")).json;
  expect(item).toMatchObject({ id, nodeCount: 2, lastError: error });
}

describe("a hostile subscription feed does not freeze the service", () => {
  it("refuses the 16,000-alias feed with 400 while status keeps answering within 1 s", async () => {
    feeds = await startFeedServer();
    feeds.setRoute("/feed", { body: GOOD });
    // No feed source given: the service reads feeds the way it does in production.
    h = await startProxy({ core: new FakeCore() });
    const id = await subscribeAndRefresh(h, `${feeds.url}/feed`);

    feeds.setRoute("/feed", { body: ALIASES });
    h.clock.advance(1000);
    const service = h;
    const run = await refreshWhileProbing(service, () =>
      service.request("POST", `/subscriptions/${id}/refresh`),
    );
    expect(run.reply.status).toBe(400);
    expect(run.reply.json.error).toBe(
      "The subscription uses more than 10,000 YAML aliases (*name); a feed that large is refused so that it cannot stall the service",
    );
    expect(run.probes).toBeGreaterThan(0);
    expect(run.slowestStatusMs).toBeLessThan(1_000);
    expect(run.worstLagMs).toBeLessThan(1_000);
    await expectPreviousNodes(h, id, run.reply.json.error);
  });

  it("refuses an exponential alias expansion and keeps the previous nodes", async () => {
    feeds = await startFeedServer();
    feeds.setRoute("/feed", { body: GOOD });
    h = await startProxy({ core: new FakeCore() });
    const id = await subscribeAndRefresh(h, `${feeds.url}/feed`);

    feeds.setRoute("/feed", { body: laughs() });
    const service = h;
    const run = await refreshWhileProbing(service, () =>
      service.request("POST", `/subscriptions/${id}/refresh`),
    );
    expect(run.reply.status).toBe(400);
    expect(run.reply.json.error).toMatch(/aliases expand to more than 50,000 values/);
    expect(run.worstLagMs).toBeLessThan(1_000);
    await expectPreviousNodes(h, id, run.reply.json.error);
  });

  it("stops reading a feed past the parse budget: 400, the reason, the nodes kept", async () => {
    feeds = await startFeedServer();
    feeds.setRoute("/feed", { body: GOOD });
    pool = new ParsePool({ budgetMs: 100 });
    const parser = pool;
    h = await startProxy({
      core: new FakeCore(),
      feeds: { fetch: fetchSubscription, parse: (body) => parser.parse(body) },
    });
    const id = await subscribeAndRefresh(h, `${feeds.url}/feed`);

    feeds.setRoute("/feed", { body: slowDocument() });
    const service = h;
    const run = await refreshWhileProbing(service, () =>
      service.request("POST", `/subscriptions/${id}/refresh`),
    );
    expect(run.reply.status).toBe(400);
    expect(run.reply.json.error).toBe(
      "The subscription took longer than 100 ms to read; reading it was stopped",
    );
    expect(run.slowestStatusMs).toBeLessThan(1_000);
    await expectPreviousNodes(h, id, run.reply.json.error);

    // The same service reads the next good document as usual.
    feeds.setRoute("/feed", { body: GOOD.replace("JP 02", "JP 03") });
    expect((await h.request("POST", `/subscriptions/${id}/refresh`)).status).toBe(200);
    const names = ((await h.request("GET", "/nodes")).json as Array<{ name: string }>).map(
      (n) => n.name,
    );
    expect(names).toEqual(["HK 01", "JP 03"]);
  });
});
