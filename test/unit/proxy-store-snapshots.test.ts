import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { migrate, openDatabase, type Db } from "../../server/db/open.js";
import { SqlProxyStore } from "../../server/proxy/store/proxy-store.js";
import { SnapshotStore } from "../../server/proxy/store/snapshots.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";

let dir: string;
let db: Db | null = null;
afterEach(() => {
  db?.close();
  db = null;
  rmSync(dir, { recursive: true, force: true });
});

describe("SnapshotStore", () => {
  it("makes a staged snapshot current only on commit and leaves no temp files", async () => {
    dir = mkdtempSync(join(tmpdir(), "gatehouse-snap-"));
    const snaps = new SnapshotStore(dir);
    const id = "a".repeat(24);
    const one = await snaps.stage(id, [{ name: "n1", type: "ss" }]);
    expect(snaps.read(id)).toEqual([]);
    await one.commit();
    const two = await snaps.stage(id, [{ name: "n2", type: "ss" }]);
    await two.discard();
    expect(new SnapshotStore(dir).read(id)).toEqual([{ name: "n1", type: "ss" }]);
    expect(readdirSync(join(dir, "snapshots"))).toEqual([`${id}.json`]);
    snaps.remove(id);
    expect(new SnapshotStore(dir).read(id)).toEqual([]);
  });
});

describe("SqlProxyStore", () => {
  it("builds the core input from enabled subscriptions, rules in order and settings", async () => {
    dir = mkdtempSync(join(tmpdir(), "gatehouse-store-"));
    db = openDatabase(join(dir, "proxy.db"));
    migrate(db, join(import.meta.dirname, "../../server/proxy/migrations"));
    const store = new SqlProxyStore(db, dir);
    expect(store.getSettings()).toEqual(DEFAULT_SETTINGS);
    const a = "a".repeat(24);
    const b = "b".repeat(24);
    store.subscriptions.create(a, { name: "A", url: "http://x/", enabled: true, intervalHours: 1 });
    store.subscriptions.create(b, {
      name: "B",
      url: "http://y/",
      enabled: false,
      intervalHours: 1,
    });
    await (await store.snapshots.stage(a, [{ name: "n1", type: "ss" }])).commit();
    store.subscriptions.recordSuccess(a, 0, null, 1);
    await (await store.snapshots.stage(b, [{ name: "n2", type: "ss" }])).commit();
    store.subscriptions.recordSuccess(b, 0, null, 1);
    store.rules.create("1".repeat(24), {
      type: "DOMAIN",
      value: "x.example",
      action: "PROXY",
      enabled: true,
    });
    store.rules.create("2".repeat(24), {
      type: "DOMAIN",
      value: "y.example",
      action: "DIRECT",
      enabled: false,
    });
    store.rules.reorder(["2".repeat(24), "1".repeat(24)]);
    store.saveSettings({ ...DEFAULT_SETTINGS, mixedPort: 7000 });
    const input = store.coreInput();
    expect(input.settings.mixedPort).toBe(7000);
    expect(input.subscriptions).toEqual([
      { id: a, name: "A", nodes: [{ name: "n1", type: "ss" }] },
    ]);
    expect(input.rules.map((r) => r.value)).toEqual(["y.example", "x.example"]);
    expect(store.nodeCount()).toBe(1);
    expect(store.coreInput({ id: a, nodes: [] }).subscriptions[0].nodes).toEqual([]);
  });
});
