import { existsSync } from "node:fs";
import type { NetworkInterfaceInfo } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";
import {
  FakeCore,
  FakeFeeds,
  PASSWORD,
  startProxy,
  type ProxyHarness,
  type Reply,
} from "./proxy-api-harness.js";

let h: ProxyHarness;
let core: FakeCore;
let feeds: FakeFeeds;
afterEach(async () => h?.close());

const interfaces = (): NodeJS.Dict<NetworkInterfaceInfo[]> => ({
  eth0: [
    {
      address: "192.168.1.2",
      netmask: "255.255.255.0",
      family: "IPv4",
      mac: "00:00:00:00:00:01",
      internal: false,
      cidr: "192.168.1.2/24",
    },
  ],
});

/** A service with two refreshed subscriptions, one rule and changed settings. */
async function start(): Promise<{ a: string; b: string; rule: string }> {
  core = new FakeCore();
  feeds = new FakeFeeds();
  h = await startProxy({ core, feeds, networkInterfaces: interfaces });
  await h.setup();
  const ids: string[] = [];
  for (const n of ["a", "b"]) {
    const url = `http://feeds.test/${n}`;
    feeds.responses.set(url, JSON.stringify([{ name: `${n}1`, type: "ss" }]));
    const id = (
      await h.request("POST", "/subscriptions", {
        body: { name: n.toUpperCase(), url, intervalHours: 12 },
      })
    ).json.id;
    await h.request("POST", `/subscriptions/${id}/refresh`);
    ids.push(id);
  }
  const rule = (
    await h.request("POST", "/rules", {
      body: { type: "DOMAIN", value: "x.example", action: "PROXY", enabled: true },
    })
  ).json.id;
  await h.request("PUT", "/settings", { body: { ...DEFAULT_SETTINGS, mixedPort: 7999 } });
  return { a: ids[0], b: ids[1], rule };
}

async function stateNow() {
  return {
    settings: (await h.request("GET", "/settings")).json,
    subscriptions: (await h.request("GET", "/subscriptions")).json,
    rules: (await h.request("GET", "/rules")).json,
    nodes: (await h.request("GET", "/nodes")).json,
  };
}

describe("GET /system/backup", () => {
  it("answers version 1 with settings, subscriptions and rules as a dated attachment", async () => {
    const { a, b, rule } = await start();
    const r = await h.request("GET", "/system/backup");
    expect(r.status).toBe(200);
    expect(r.headers["content-disposition"]).toBe(
      'attachment; filename="gatehouse-proxy-2026-01-01.json"',
    );
    expect(r.json).toEqual({
      version: 1,
      exportedAt: "2026-01-01T12:00:00.000Z",
      state: {
        settings: { ...DEFAULT_SETTINGS, mixedPort: 7999 },
        subscriptions: [
          { id: a, name: "A", url: "http://feeds.test/a", enabled: true, intervalHours: 12 },
          { id: b, name: "B", url: "http://feeds.test/b", enabled: true, intervalHours: 12 },
        ],
        rules: [{ id: rule, type: "DOMAIN", value: "x.example", action: "PROXY", enabled: true }],
        devices: [],
      },
    });
  });
});

describe("POST /system/restore", () => {
  it("replaces the state, keeps snapshots of kept ids, fetches nothing, re-applies", async () => {
    const { a, b } = await start();
    const backup = (await h.request("GET", "/system/backup")).json;
    const newId = "0123456789abcdef01234567";
    backup.state.settings = { ...DEFAULT_SETTINGS, mixedPort: 7001 };
    backup.state.subscriptions = [
      { id: newId, name: "New", url: "https://feeds.test/new", enabled: true, intervalHours: 0 },
      { ...backup.state.subscriptions[0], name: "A2" },
    ];
    backup.state.rules = [
      {
        id: "a".repeat(24),
        type: "IP-CIDR",
        value: "10.9.9.9/8",
        action: "DIRECT",
        enabled: false,
      },
    ];
    const fetchesBefore = feeds.calls.length;
    const r = await h.request("POST", "/system/restore", { body: backup });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
    expect(feeds.calls.length).toBe(fetchesBefore);
    const s = await stateNow();
    expect(s.settings.mixedPort).toBe(7001);
    expect(
      s.subscriptions.map((x: { id: string; name: string; nodeCount: number }) => [
        x.id,
        x.name,
        x.nodeCount,
      ]),
    ).toEqual([
      [newId, "New", 0],
      [a, "A2", 1],
    ]);
    expect(s.rules.custom).toEqual([
      {
        id: "a".repeat(24),
        type: "IP-CIDR",
        value: "10.0.0.0/8",
        action: "DIRECT",
        enabled: false,
      },
    ]);
    expect(s.nodes.map((n: { name: string }) => n.name)).toEqual(["a1"]);
    expect(existsSync(join(h.dataDir, "proxy", "snapshots", `${b}.json`))).toBe(false);
    expect(core.lastApplied?.subscriptions.map((x) => x.id)).toEqual([newId, a]);
    // The administrator account is untouched.
    expect(
      (await h.request("POST", "/auth/login", { body: { password: PASSWORD }, noCookie: true }))
        .status,
    ).toBe(200);
  });

  it("leaves everything as it was when the core refuses the restored configuration", async () => {
    const { b } = await start();
    const before = await stateNow();
    const backup = (await h.request("GET", "/system/backup")).json;
    backup.state.subscriptions = [];
    backup.state.rules = [];
    backup.state.settings.mixedPort = 7002;
    core.failApply = "configuration test failed";
    const r = await h.request("POST", "/system/restore", { body: backup });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe("configuration test failed");
    expect(await stateNow()).toEqual(before);
    expect(existsSync(join(h.dataDir, "proxy", "snapshots", `${b}.json`))).toBe(true);
  });

  const invalid: Array<[string, (b: Reply["json"]) => void]> = [
    ["version 2", (b) => (b.version = 2)],
    ["a missing version", (b) => delete b.version],
    ["a missing state", (b) => delete b.state],
    ["a missing settings field", (b) => delete b.state.settings.dnsPort],
    ["invalid settings", (b) => (b.state.settings.mixedPort = 80)],
    [
      "TUN on an interface this machine lacks",
      (b) =>
        Object.assign(b.state.settings, {
          tunEnabled: true,
          dnsPort: 53,
          lanIP: "10.0.0.2",
          lanCIDR: "10.0.0.0/24",
          gateway: "10.0.0.1",
          interface: "eth7",
        }),
    ],
    ["a bad subscription id", (b) => (b.state.subscriptions[0].id = "xyz")],
    ["a subscription without enabled", (b) => delete b.state.subscriptions[0].enabled],
    ["a subscription with a bad url", (b) => (b.state.subscriptions[0].url = "file:///etc/passwd")],
    [
      "a duplicate subscription id",
      (b) => (b.state.subscriptions[1].id = b.state.subscriptions[0].id),
    ],
    [
      "51 subscriptions",
      (b) =>
        (b.state.subscriptions = Array.from({ length: 51 }, (_, i) => ({
          id: i.toString(16).padStart(24, "0"),
          name: `S${i}`,
          url: "http://x.test/",
          enabled: true,
          intervalHours: 1,
        }))),
    ],
    ["a bad rule", (b) => (b.state.rules[0].value = "not a domain!")],
    ["a rule without id", (b) => delete b.state.rules[0].id],
    ["a rule without enabled", (b) => delete b.state.rules[0].enabled],
  ];
  it.each(invalid)("answers 400 and changes nothing for %s", async (_label, spoil) => {
    await start();
    const before = await stateNow();
    const backup = (await h.request("GET", "/system/backup")).json;
    backup.state.settings.mixedPort = 7003;
    spoil(backup);
    const applies = core.applied.length;
    const r = await h.request("POST", "/system/restore", { body: backup });
    expect(r.status).toBe(400);
    expect(r.json.error).toEqual(expect.any(String));
    expect(await stateNow()).toEqual(before);
    expect(core.applied.length).toBe(applies);
  });
});
