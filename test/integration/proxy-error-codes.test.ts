import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFeedServer, type FeedServer } from "../fixtures/feed-server.js";
import {
  FakeCore,
  PASSWORD,
  sessionCookie,
  startProxy,
  type ProxyHarness,
} from "./proxy-api-harness.js";

/**
 * Every error answer of the proxy service names its failure with a stable code and the values
 * its sentence mentions; a subscription keeps its last refresh failure's code and values, so
 * the console says it in the reader's language even after a restart.
 */

let h: ProxyHarness;
let feeds: FeedServer;
let dataDir: string;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => feeds?.close());
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "gatehouse-proxy-codes-"));
});
afterEach(async () => {
  await h?.close(false);
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<void> {
  // The real download and the real reader (a worker thread): failures cross it with codes.
  h = await startProxy({ core: new FakeCore(), dataDir });
}

async function subscribe(path: string): Promise<string> {
  const r = await h.request("POST", "/subscriptions", {
    body: { name: path, url: `${feeds.url}${path}`, intervalHours: 0 },
  });
  expect(r.status).toBe(200);
  return r.json.id as string;
}

async function listItem(id: string): Promise<Record<string, unknown>> {
  const list = (await h.request("GET", "/subscriptions")).json as Array<{ id: string }>;
  return list.find((s) => s.id === id) as Record<string, unknown>;
}

describe("proxy error answers", () => {
  it("keep a refresh failure's code and values in the answer, the list, and across a restart", async () => {
    await start();
    await h.setup();
    feeds.setRoute("/gone", { status: 404, body: "no such feed" });
    const id = await subscribe("/gone");
    const r = await h.request("POST", `/subscriptions/${id}/refresh`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      error: "The subscription server answered 404",
      code: "subscription.fetch_status",
      params: { status: 404 },
    });
    const failed = {
      lastError: "The subscription server answered 404",
      lastErrorCode: "subscription.fetch_status",
      lastErrorParams: { status: 404 },
    };
    expect(await listItem(id)).toMatchObject(failed);

    await h.close(false);
    await start();
    const login = await h.request("POST", "/auth/login", { body: { password: PASSWORD } });
    expect(login.status).toBe(200);
    h.cookie = sessionCookie(login);
    h.csrf = login.json.csrf;
    expect(await listItem(id)).toMatchObject(failed);

    // A later success clears all three.
    feeds.setRoute("/gone", { feed: "clash.yml" });
    expect((await h.request("POST", `/subscriptions/${id}/refresh`)).status).toBe(200);
    expect(await listItem(id)).toMatchObject({
      lastError: "",
      lastErrorCode: "",
      lastErrorParams: {},
    });
  });

  it("bring a reader's refusal back from its worker thread with its code and values", async () => {
    await start();
    await h.setup();
    feeds.setRoute("/prose", { body: "Dear customer, your plan has ended.\n" });
    const prose = await subscribe("/prose");
    const r = await h.request("POST", `/subscriptions/${prose}/refresh`);
    expect(r.json).toEqual({
      error: "The subscription is not in a recognised format",
      code: "subscription.format",
    });
    feeds.setRoute("/broken", { body: "ss://not-a-node\nvmess://%%%\n" });
    const broken = await subscribe("/broken");
    const b = await h.request("POST", `/subscriptions/${broken}/refresh`);
    expect(b.json).toMatchObject({ code: "subscription.no_nodes", params: { skipped: 2 } });
  });

  it("name the session, CSRF, Host and validation failures", async () => {
    await start();
    const anonymous = await h.request("GET", "/subscriptions");
    expect(anonymous.json).toEqual({ error: "Sign in first", code: "auth.sign_in" });
    await h.setup();
    const csrf = await h.request("POST", "/rules", {
      body: { type: "DOMAIN", value: "a.example", action: "DIRECT" },
      noCsrf: true,
    });
    expect(csrf.json).toEqual({ error: "The CSRF token is missing or wrong", code: "auth.csrf" });
    const host = await h.request("GET", "/status", { headers: { host: "rebind.example" } });
    expect(host.status).toBe(421);
    expect(host.json).toMatchObject({ code: "request.wrong_host" });
    const interval = await h.request("POST", "/subscriptions", {
      body: { name: "A", url: `${feeds.url}/a`, intervalHours: 999 },
    });
    expect(interval.json).toMatchObject({
      code: "request.invalid",
      params: { field: "intervalHours", issue: "too_big", origin: "number", limit: 720 },
    });
  });

  it("name contradicting settings and where a backup is wrong, with the inner reason's code", async () => {
    await start();
    await h.setup();
    const settings = (await h.request("GET", "/settings")).json as Record<string, unknown>;
    const clash = await h.request("PUT", "/settings", {
      body: { ...settings, mixedPort: 1053, dnsPort: 1053 },
    });
    expect(clash.json).toEqual({
      error: "mixedPort must differ from dnsPort",
      code: "settings.mixed_port_dns",
    });
    const backup = (await h.request("GET", "/system/backup")).json as {
      state: { rules: unknown[] };
    };
    backup.state.rules = [
      { id: "a".repeat(24), type: "DOMAIN", value: "a.example", action: "DIRECT", enabled: true },
      { id: "b".repeat(24), type: "GEOIP", value: "CN", action: "DIRECT", enabled: true },
    ];
    const restore = await h.request("POST", "/system/restore", { body: backup });
    expect(restore.status).toBe(400);
    expect(restore.json).toMatchObject({
      code: "backup.invalid_rule",
      params: { rule: 2, reason_code: "request.invalid", field: "type", issue: "invalid_value" },
    });
    expect(restore.json.error).toMatch(/^Invalid rule 2: /);
  });
});
