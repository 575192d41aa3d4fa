import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FakeCore, FakeFeeds, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

let h: ProxyHarness;
let core: FakeCore;
let feeds: FakeFeeds;
afterEach(async () => h?.close());

async function start(): Promise<void> {
  core = new FakeCore();
  feeds = new FakeFeeds();
  h = await startProxy({ core, feeds });
  await h.setup();
}

const FEED = "http://feeds.test/a";
const nodes = (...names: string[]) =>
  JSON.stringify(
    names.map((name) => ({ name, type: "ss", server: "10.0.0.1", port: 1, password: "p" })),
  );

async function create(body: Record<string, unknown> = {}): Promise<string> {
  const r = await h.request("POST", "/subscriptions", { body: { name: "A", url: FEED, ...body } });
  expect(r.status).toBe(200);
  return r.json.id;
}

describe("POST /subscriptions", () => {
  it("creates with trimmed fields and defaults, without fetching", async () => {
    await start();
    const r = await h.request("POST", "/subscriptions", {
      body: { name: "  Home  ", url: `  ${FEED}  ` },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), ok: true });
    const list = await h.request("GET", "/subscriptions");
    expect(list.json).toEqual([
      {
        id: r.json.id,
        name: "Home",
        url: FEED,
        enabled: true,
        intervalHours: 24,
        updatedAt: null,
        attemptedAt: null,
        lastError: "",
        lastErrorCode: "",
        lastErrorParams: {},
        usage: null,
        nodeCount: 0,
        refreshing: false,
        createdAt: new Date(h.clock.now()).toISOString(),
        stale: false,
      },
    ]);
    expect(feeds.calls).toEqual([]);
  });

  it.each([
    [{ name: "" }],
    [{ name: "   " }],
    [{ name: "x".repeat(65) }],
    [{ url: "ftp://feeds.test/a" }],
    [{ url: "not a url" }],
    [{ url: `http://feeds.test/${"a".repeat(2040)}` }],
    [{ intervalHours: -1 }],
    [{ intervalHours: 721 }],
    [{ intervalHours: 1.5 }],
    [{ enabled: "yes" }],
    [{ extra: 1 }],
  ])("answers 400 for %j", async (patch) => {
    await start();
    const r = await h.request("POST", "/subscriptions", {
      body: { name: "A", url: FEED, ...patch },
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toEqual(expect.any(String));
    expect((await h.request("GET", "/subscriptions")).json).toEqual([]);
  });

  it("accepts 64 characters, 2048-character URLs, 0 and 720 hours", async () => {
    await start();
    await create({ name: "x".repeat(64), intervalHours: 0 });
    await create({ url: `http://feeds.test/${"a".repeat(2048 - 18)}`, intervalHours: 720 });
  });

  it("answers 400 for the 51st subscription", async () => {
    await start();
    for (let i = 0; i < 50; i++) await create({ name: `S${i}`, url: `${FEED}/${i}` });
    const r = await h.request("POST", "/subscriptions", {
      body: { name: "S50", url: `${FEED}/50` },
    });
    expect(r.status).toBe(400);
    expect((await h.request("GET", "/subscriptions")).json).toHaveLength(50);
  });
});

describe("POST /subscriptions/{id}/refresh", () => {
  it("stores the nodes and usage, and applies them to the core", async () => {
    await start();
    const id = await create();
    feeds.responses.set(FEED, nodes("n1", "n2"));
    feeds.usage.set(FEED, { upload: 1, download: 2, total: 3, expire: 1_800_000_000 });
    const r = await h.request("POST", `/subscriptions/${id}/refresh`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
    const [item] = (await h.request("GET", "/subscriptions")).json;
    expect(item).toMatchObject({
      nodeCount: 2,
      lastError: "",
      usage: { upload: 1, download: 2, total: 3, expire: 1_800_000_000 },
      updatedAt: "2026-01-01T12:00:00.000Z",
      attemptedAt: "2026-01-01T12:00:00.000Z",
    });
    expect(core.lastApplied?.subscriptions).toEqual([
      { id, name: "A", nodes: JSON.parse(nodes("n1", "n2")) },
    ]);
    const snapshot = join(h.dataDir, "proxy", "snapshots", `${id}.json`);
    expect(JSON.parse(readFileSync(snapshot, "utf8"))).toHaveLength(2);
  });

  it("keeps the previous nodes on failure and records the error (400)", async () => {
    await start();
    const id = await create();
    feeds.responses.set(FEED, nodes("n1"));
    await h.request("POST", `/subscriptions/${id}/refresh`);
    h.clock.advance(60_000);
    feeds.responses.set(FEED, new Error("The server answered 502"));
    const r = await h.request("POST", `/subscriptions/${id}/refresh`);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe("The server answered 502");
    const [item] = (await h.request("GET", "/subscriptions")).json;
    expect(item).toMatchObject({
      nodeCount: 1,
      lastError: "The server answered 502",
      lastErrorCode: "subscription.refresh_failed",
      updatedAt: "2026-01-01T12:00:00.000Z",
      attemptedAt: "2026-01-01T12:01:00.000Z",
    });
    expect((await h.request("GET", "/nodes")).json.map((n: { name: string }) => n.name)).toEqual([
      "n1",
    ]);
    feeds.responses.set(FEED, "[]");
    const empty = await h.request("POST", `/subscriptions/${id}/refresh`);
    expect(empty.status).toBe(400);
    expect((await h.request("GET", "/nodes")).json).toHaveLength(1);
  });

  it("keeps the previous snapshot when the core refuses the new configuration", async () => {
    await start();
    const id = await create();
    feeds.responses.set(FEED, nodes("n1"));
    await h.request("POST", `/subscriptions/${id}/refresh`);
    feeds.responses.set(FEED, nodes("n2", "n3"));
    core.failApply = "configuration test failed";
    const r = await h.request("POST", `/subscriptions/${id}/refresh`);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe("configuration test failed");
    expect((await h.request("GET", "/nodes")).json.map((n: { name: string }) => n.name)).toEqual([
      "n1",
    ]);
    const dir = join(h.dataDir, "proxy", "snapshots");
    expect(JSON.parse(readFileSync(join(dir, `${id}.json`), "utf8"))).toHaveLength(1);
  });

  it("does not start a second refresh while one runs, and reports refreshing", async () => {
    await start();
    const id = await create();
    feeds.responses.set(FEED, nodes("n1"));
    let open!: () => void;
    feeds.gate = new Promise((r) => (open = r));
    const first = h.request("POST", `/subscriptions/${id}/refresh`);
    const second = h.request("POST", `/subscriptions/${id}/refresh`);
    // The first refresh is at the feed (held by the gate): it is running.
    await expect.poll(() => feeds.calls.length).toBe(1);
    expect((await h.request("GET", "/subscriptions")).json[0].refreshing).toBe(true);
    open();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(feeds.calls).toEqual([FEED]);
    expect((await h.request("GET", "/subscriptions")).json[0].refreshing).toBe(false);
  });

  it("answers 400 for an unknown id", async () => {
    await start();
    expect((await h.request("POST", `/subscriptions/${"0".repeat(24)}/refresh`)).status).toBe(400);
    expect((await h.request("POST", "/subscriptions/nope/refresh")).status).toBe(400);
  });
});

describe("PUT and DELETE /subscriptions/{id}", () => {
  it("edit keeps nodes, times, error and usage, and re-applies", async () => {
    await start();
    const id = await create();
    feeds.responses.set(FEED, nodes("n1"));
    feeds.usage.set(FEED, { upload: 5, download: 6, total: 7, expire: null });
    await h.request("POST", `/subscriptions/${id}/refresh`);
    const before = (await h.request("GET", "/subscriptions")).json[0];
    const applies = core.applied.length;
    const r = await h.request("PUT", `/subscriptions/${id}`, {
      body: { name: " B ", url: "https://feeds.test/b", enabled: false, intervalHours: 6 },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id, ok: true });
    const after = (await h.request("GET", "/subscriptions")).json[0];
    expect(after).toEqual({
      ...before,
      name: "B",
      url: "https://feeds.test/b",
      enabled: false,
      intervalHours: 6,
    });
    expect(core.applied.length).toBe(applies + 1);
    expect(core.lastApplied?.subscriptions).toEqual([]);
    expect(
      (
        await h.request("PUT", `/subscriptions/${"a".repeat(24)}`, {
          body: { name: "x", url: FEED },
        })
      ).status,
    ).toBe(400);
  });

  it("delete removes the snapshot and re-applies", async () => {
    await start();
    const id = await create();
    feeds.responses.set(FEED, nodes("n1"));
    await h.request("POST", `/subscriptions/${id}/refresh`);
    const r = await h.request("DELETE", `/subscriptions/${id}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
    expect(existsSync(join(h.dataDir, "proxy", "snapshots", `${id}.json`))).toBe(false);
    expect(core.lastApplied?.subscriptions).toEqual([]);
    expect((await h.request("GET", "/subscriptions")).json).toEqual([]);
    expect((await h.request("DELETE", `/subscriptions/${id}`)).status).toBe(400);
  });
});

describe("scheduler", () => {
  it("refreshes enabled subscriptions when their interval has passed", async () => {
    await start();
    const due = await create({ name: "due", intervalHours: 1 });
    await create({ name: "manual", url: "http://feeds.test/manual", intervalHours: 0 });
    await create({ name: "off", url: "http://feeds.test/off", enabled: false });
    feeds.responses.set(FEED, nodes("n1"));
    await h.service.scheduler.tick();
    expect(feeds.calls).toEqual([FEED]);
    h.clock.advance(59 * 60_000);
    await h.service.scheduler.tick();
    expect(feeds.calls).toHaveLength(1);
    h.clock.advance(60_000);
    feeds.responses.set(FEED, new Error("down"));
    await h.service.scheduler.tick();
    expect(feeds.calls).toHaveLength(2);
    const item = (await h.request("GET", "/subscriptions")).json.find(
      (s: { id: string }) => s.id === due,
    );
    expect(item).toMatchObject({
      nodeCount: 1,
      lastError: "down",
      attemptedAt: "2026-01-01T13:00:00.000Z",
    });
  });

  it("never overlaps checks", async () => {
    await start();
    await create({ intervalHours: 1 });
    feeds.responses.set(FEED, nodes("n1"));
    let open!: () => void;
    feeds.gate = new Promise((r) => (open = r));
    const a = h.service.scheduler.tick();
    const b = h.service.scheduler.tick();
    open();
    await Promise.all([a, b]);
    expect(feeds.calls).toHaveLength(1);
  });
});
