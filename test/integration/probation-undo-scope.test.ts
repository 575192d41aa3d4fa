import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FakeCore,
  FakeFeeds,
  PASSWORD,
  sessionCookie,
  startProxy,
  type ProxyHarness,
} from "./proxy-api-harness.js";

/**
 * Undoing a restore on probation undoes the restore and nothing else: rules, subscriptions
 * and the node choice made while it waited stay; what it dropped comes back with its nodes;
 * and the node snapshot (with the nodes' passwords) of a subscription that ends up gone is
 * removed, whichever way the probation ends.
 */

const harnesses: ProxyHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

interface Sub {
  id: string;
  name: string;
  nodeCount: number;
}

let feeds: FakeFeeds;

async function service(dataDir?: string): Promise<ProxyHarness> {
  const core = new FakeCore();
  core.isRunning = true;
  const h = await startProxy({ core, feeds, probationCheckMs: 0, dataDir });
  harnesses.push(h);
  if (!dataDir) await h.setup();
  else {
    const login = await h.request("POST", "/auth/login", { body: { password: PASSWORD } });
    h.cookie = sessionCookie(login);
    h.csrf = login.json.csrf;
  }
  return h;
}

async function subscribe(h: ProxyHarness, name: string): Promise<string> {
  const url = `http://feeds.test/${name}`;
  feeds.responses.set(url, JSON.stringify([{ name: `${name}-node`, type: "ss", password: "pw" }]));
  const id = (await h.request("POST", "/subscriptions", { body: { name, url, intervalHours: 0 } }))
    .json.id as string;
  expect((await h.request("POST", `/subscriptions/${id}/refresh`)).status).toBe(200);
  return id;
}

async function addRule(h: ProxyHarness, value: string): Promise<string> {
  const r = await h.request("POST", "/rules", {
    body: { type: "DOMAIN-SUFFIX", value, action: "DIRECT" },
  });
  expect(r.status, r.text).toBe(200);
  return r.json.id as string;
}

const subs = async (h: ProxyHarness) => (await h.request("GET", "/subscriptions")).json as Sub[];
const ruleValues = async (h: ProxyHarness) =>
  ((await h.request("GET", "/rules")).json.custom as Array<{ value: string }>).map((r) => r.value);
const snapshotFiles = (h: ProxyHarness) =>
  readdirSync(join(h.dataDir, "proxy", "snapshots")).filter((f) => f.endsWith(".json"));

/**
 * Two subscriptions and three rules; then a restore of a backup that drops subscription
 * "dropped" and rule "b.example", reorders the other rules, adds rule "restored.example" and
 * turns the proxy off (so it waits for confirmation).
 */
async function restoredOnProbation(h: ProxyHarness) {
  const kept = await subscribe(h, "kept");
  const dropped = await subscribe(h, "dropped");
  for (const v of ["a.example", "b.example", "c.example"]) await addRule(h, v);
  const backup = (await h.request("GET", "/system/backup")).json;
  backup.state.settings.proxyEnabled = false;
  backup.state.subscriptions = backup.state.subscriptions.filter(
    (s: { id: string }) => s.id !== dropped,
  );
  const [a, , c] = backup.state.rules;
  backup.state.rules = [
    c,
    {
      id: "f".repeat(24),
      type: "DOMAIN",
      value: "restored.example",
      action: "PROXY",
      enabled: true,
    },
    a,
  ];
  const r = await h.request("POST", "/system/restore", { body: backup });
  expect(r.status, r.text).toBe(200);
  expect(r.headers["x-gatehouse-probation"]).toBeDefined();
  expect((await subs(h)).map((s) => s.id)).toEqual([kept]);
  expect(await ruleValues(h)).toEqual(["c.example", "restored.example", "a.example"]);
  // The dropped subscription's nodes are kept while the restore may still be undone.
  expect(snapshotFiles(h).sort()).toEqual([`${kept}.json`, `${dropped}.json`].sort());
  return { kept, dropped };
}

/** What the operator does while the restore waits: none of it is part of the restore. */
async function meanwhile(h: ProxyHarness) {
  const later = await subscribe(h, "later");
  await addRule(h, "later.example");
  const nodes = (await h.request("GET", "/nodes")).json as Array<{ id: string; name: string }>;
  const node = nodes.find((n) => n.name === "later-node")!.id;
  const pick = await h.request("POST", "/nodes/select", { body: { mode: "manual", id: node } });
  expect(pick.status, pick.text).toBe(200);
  return { later, node };
}

describe("undoing a restore on probation", () => {
  it("puts back what the restore changed and keeps what was added while it waited", async () => {
    feeds = new FakeFeeds();
    const h = await service();
    const { kept, dropped } = await restoredOnProbation(h);
    const { later, node } = await meanwhile(h);
    expect((await h.request("POST", "/system/probation/revert", { body: {} })).status).toBe(200);

    const settings = (await h.request("GET", "/settings")).json;
    expect(settings.proxyEnabled).toBe(true);
    expect(settings).toMatchObject({ selectionMode: "manual", selectedNode: node });
    const after = await subs(h);
    expect(after.map((s) => s.id)).toEqual([kept, dropped, later]);
    // The dropped subscription is back with its nodes.
    expect(after.find((s) => s.id === dropped)?.nodeCount).toBe(1);
    const names = ((await h.request("GET", "/nodes")).json as Array<{ name: string }>).map(
      (n) => n.name,
    );
    expect(names.sort()).toEqual(["dropped-node", "kept-node", "later-node"]);
    // The earlier order of the earlier rules, the restore's own rule gone, the later one kept.
    expect(await ruleValues(h)).toEqual(["a.example", "b.example", "c.example", "later.example"]);
    expect(snapshotFiles(h).sort()).toEqual(
      [`${kept}.json`, `${dropped}.json`, `${later}.json`].sort(),
    );
  });

  it("does the same after a restart of the service", async () => {
    feeds = new FakeFeeds();
    const h = await service();
    const { dropped } = await restoredOnProbation(h);
    await addRule(h, "later.example");
    harnesses.splice(harnesses.indexOf(h), 1);
    await h.close(false);
    // The restart undoes the restore before the snapshots are tidied: the dropped
    // subscription's nodes survive it.
    const again = await service(h.dataDir);
    const after = await subs(again);
    expect(after.find((s) => s.id === dropped)?.nodeCount).toBe(1);
    expect(snapshotFiles(again)).toContain(`${dropped}.json`);
    expect(((await again.request("GET", "/nodes")).json as unknown[]).length).toBe(2);
    expect(await ruleValues(again)).toEqual([
      "a.example",
      "b.example",
      "c.example",
      "later.example",
    ]);
    expect((await again.request("GET", "/status")).json.configErrorCode).toBe(
      "probation.rolled_back_restart",
    );
  });

  it("removes a subscription the restore added, and its nodes, even when refreshed meanwhile", async () => {
    feeds = new FakeFeeds();
    const h = await service();
    await subscribe(h, "kept");
    const backup = (await h.request("GET", "/system/backup")).json;
    const added = "e".repeat(24);
    const url = "http://feeds.test/added";
    feeds.responses.set(url, JSON.stringify([{ name: "added-node", type: "ss" }]));
    backup.state.subscriptions.push({
      id: added,
      name: "added",
      url,
      enabled: true,
      intervalHours: 0,
    });
    backup.state.settings.proxyEnabled = false;
    expect((await h.request("POST", "/system/restore", { body: backup })).status).toBe(200);
    expect((await h.request("POST", `/subscriptions/${added}/refresh`)).status).toBe(200);
    expect(snapshotFiles(h)).toContain(`${added}.json`);
    h.clock.advance(60_000);
    await h.service.probation.tick();
    expect((await subs(h)).map((s) => s.name)).toEqual(["kept"]);
    expect(snapshotFiles(h)).not.toContain(`${added}.json`);
  });
});

describe("a rollback point an earlier version left", () => {
  it("is undone at start as that version would have: the whole state before it back", async () => {
    feeds = new FakeFeeds();
    const h = await service();
    const before = (await h.request("GET", "/settings")).json;
    const r = await h.request("PUT", "/settings", { body: { ...before, proxyEnabled: false } });
    expect(r.status).toBe(200);
    harnesses.splice(harnesses.indexOf(h), 1);
    await h.close(false);
    // That version kept `{ deadlineMs, point }`: the settings before the change.
    const file = join(h.dataDir, "proxy", "probation.json");
    writeFileSync(file, JSON.stringify({ deadlineMs: 0, point: { settings: before } }));
    const again = await service(h.dataDir);
    expect((await again.request("GET", "/settings")).json).toEqual(before);
    expect(existsSync(file)).toBe(false);
  });
});

describe("confirming a restore", () => {
  it("removes the dropped subscription's snapshot, nodes and passwords with it", async () => {
    feeds = new FakeFeeds();
    const h = await service();
    const { kept, dropped } = await restoredOnProbation(h);
    expect((await h.request("POST", "/system/confirm", { body: {} })).status).toBe(200);
    expect(snapshotFiles(h)).toEqual([`${kept}.json`]);
    expect(existsSync(join(h.dataDir, "proxy", "snapshots", `${dropped}.json`))).toBe(false);
    expect(await ruleValues(h)).toEqual(["c.example", "restored.example", "a.example"]);
  });
});
