import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startFeedServer, type FeedServer } from "../fixtures/feed-server.js";
import { checkProxyStore } from "../helpers/fault-invariants.js";
import {
  proxyConsole,
  startService,
  until,
  type Client,
  type ServiceProcess,
  FAULT_TEST_TIMEOUT_MS,
} from "../helpers/fault-service.js";

// Each test starts the real service several times: a busy machine needs more than 30 s.
vi.setConfig({ testTimeout: FAULT_TEST_TIMEOUT_MS });

/**
 * SIGKILL of the real headless proxy service during a subscription refresh, then a restart on
 * the same data dir: the subscription keeps its previous nodes, and every snapshot file is a
 * whole one.
 */
let feed: FeedServer;
let dir: string;
let gate: string;
const running: ServiceProcess[] = [];

/**
 * A core executable for the configuration test only: `-v` prints a version; `-t` touches
 * `checking` in the gate dir, waits while `hold` exists there, then passes. It lets a test
 * catch the service between writing a new snapshot and making it current.
 */
function gatedCore(): string {
  const file = join(gate, "core.sh");
  writeFileSync(
    file,
    `#!/bin/sh
for a in "$@"; do
  if [ "$a" = "-v" ]; then echo "Mihomo Meta v1.19.2 linux amd64 with go1.23.4"; exit 0; fi
  if [ "$a" = "-t" ]; then
    touch "${gate}/checking"
    while [ -e "${gate}/hold" ]; do sleep 0.02; done
    echo "configuration file test is successful"; exit 0
  fi
done
exit 1
`,
  );
  chmodSync(file, 0o755);
  return file;
}

async function start(): Promise<{ svc: ServiceProcess; console: Client }> {
  const svc = await startService({
    dataDir: dir,
    only: "proxy",
    args: ["--core-bin", join(gate, "core.sh")],
  });
  running.push(svc);
  return { svc, console: await proxyConsole(svc) };
}

async function nodeNames(c: Client): Promise<string[]> {
  const nodes = await c.expect<Array<{ name: string }>>(200, "GET", "/api/v1/nodes");
  return nodes.map((n) => n.name).sort();
}

/** One subscription refreshed from the clash feed; answers its id and node names. */
async function subscribed(c: Client): Promise<{ id: string; names: string[] }> {
  feed.setRoute("/sub", { feed: "clash.yml" });
  const { id } = await c.expect<{ id: string }>(200, "POST", "/api/v1/subscriptions", {
    body: { name: "Provider", url: `${feed.url}/sub` },
  });
  await c.expect(200, "POST", `/api/v1/subscriptions/${id}/refresh`);
  const names = await nodeNames(c);
  expect(names.length).toBeGreaterThan(3);
  return { id, names };
}

/** Asserts the store after the restart: whole snapshots, the old nodes, no temporary files. */
async function checkRecovered(id: string, names: string[]): Promise<void> {
  const { svc, console: c } = await start();
  expect(await nodeNames(c)).toEqual(names);
  const subs = await c.expect<Array<{ id: string; nodeCount: number }>>(
    200,
    "GET",
    "/api/v1/subscriptions",
  );
  expect(subs).toMatchObject([{ id, nodeCount: names.length }]);
  expect(await svc.stop()).toBe(0);
  const report = checkProxyStore(dir);
  expect(report.problems).toEqual([]);
  expect(report.temp).toEqual([]);
  expect(report.nodes.get(id)?.sort()).toEqual(names);
}

beforeEach(async () => {
  feed = await startFeedServer();
  dir = mkdtempSync(join(tmpdir(), "gh-fault-"));
  gate = mkdtempSync(join(tmpdir(), "gh-fault-gate-"));
  gatedCore();
});

afterEach(async () => {
  rmSync(join(gate, "hold"), { force: true });
  await Promise.all(running.splice(0).map((s) => s.kill()));
  await feed.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(gate, { recursive: true, force: true });
});

describe("SIGKILL during a subscription refresh, then restart", () => {
  it("kills while the feed server holds the download: the previous nodes stay", async () => {
    const { svc, console: c } = await start();
    const { id, names } = await subscribed(c);
    // The provider now answers slowly, with other nodes.
    feed.setRoute("/sub", { feed: "uri-list.txt", delayMs: 60_000 });
    const asked = feed.requests.length;
    c.request("POST", `/api/v1/subscriptions/${id}/refresh`).catch(() => undefined);
    await until(() => feed.requests.length > asked, "the feed server got the refresh");
    await svc.kill();
    await checkRecovered(id, names);
  });

  it("kills between writing the new snapshot and making it current: the old one stays whole, the new one is dropped", async () => {
    const { svc, console: c } = await start();
    const { id, names } = await subscribed(c);
    feed.setRoute("/sub", { feed: "uri-list.txt" });
    rmSync(join(gate, "checking"), { force: true });
    writeFileSync(join(gate, "hold"), "");
    c.request("POST", `/api/v1/subscriptions/${id}/refresh`).catch(() => undefined);
    await until(() => existsSync(join(gate, "checking")), "the core checks the new configuration");
    const snapshots = join(dir, "proxy", "snapshots");
    // The new snapshot is written (a temporary file) and waits for the core's verdict.
    expect(readdirSync(snapshots).filter((f) => f.endsWith(".tmp"))).toHaveLength(1);
    await svc.kill();
    rmSync(join(gate, "hold"), { force: true });
    await checkRecovered(id, names);
  });

  it("kills while a deleted subscription's new configuration is checked: no snapshot outlives its subscription", async () => {
    const { svc, console: c } = await start();
    const kept = await subscribed(c);
    feed.setRoute("/other", { feed: "uri-list.txt" });
    const { id: gone } = await c.expect<{ id: string }>(200, "POST", "/api/v1/subscriptions", {
      body: { name: "Other", url: `${feed.url}/other` },
    });
    await c.expect(200, "POST", `/api/v1/subscriptions/${gone}/refresh`);
    rmSync(join(gate, "checking"), { force: true });
    writeFileSync(join(gate, "hold"), "");
    c.request("DELETE", `/api/v1/subscriptions/${gone}`).catch(() => undefined);
    await until(() => existsSync(join(gate, "checking")), "the core checks the new configuration");
    await svc.kill();
    rmSync(join(gate, "hold"), { force: true });
    // The deletion was committed before the check; its snapshot file was still there.
    expect(existsSync(join(dir, "proxy", "snapshots", `${gone}.json`))).toBe(true);
    await checkRecovered(kept.id, kept.names);
  });
});
