import { afterEach, describe, expect, it } from "vitest";
import {
  NodeListSchema,
  PROXY_API,
  RuleSavedSchema,
  RulesViewSchema,
  SettingsSchema,
  StatusSchema,
  SubscriptionListSchema,
  SubscriptionSavedSchema,
  ProbationStateSchema,
} from "../../server/contract/proxy.js";
import { openApiPath } from "../../server/http/openapi.js";
import { FakeCore, FakeFeeds, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

let h: ProxyHarness;
afterEach(async () => h?.close());

const FEED = "http://feeds.test/a";

interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
}

/** Every `METHOD /path` the document describes, written as the route table writes them. */
function operations(doc: OpenApiDoc): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) {
      out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out.sort();
}

describe("GET /health", () => {
  it("answers without a session whether the service is set up, and its version", async () => {
    h = await startProxy({ core: new FakeCore() });
    const before = await h.request("GET", "/health", { noCookie: true });
    expect(before.status).toBe(200);
    expect(before.json).toEqual({ ok: true, initialized: false, version: expect.any(String) });
    await h.setup();
    const after = await h.request("GET", "/health", { noCookie: true });
    expect(after.json).toMatchObject({ ok: true, initialized: true });
    expect(after.headers["set-cookie"]).toBeUndefined();
  });
});

describe("GET /openapi.json", () => {
  it("answers without a session and describes every registered route and nothing else", async () => {
    h = await startProxy({ core: new FakeCore() });
    const r = await h.request("GET", "/openapi.json", { noCookie: true });
    expect(r.status).toBe(200);
    const doc = r.json as OpenApiDoc;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("Gatehouse proxy API");
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
    const registered = h.service.ctx.routes.routes
      .map((route) => `${route.method} ${openApiPath(route.path)}`)
      .sort();
    expect(registered.length).toBeGreaterThan(30);
    expect(operations(doc)).toEqual(registered);
    // Every operation has a title and a group.
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        expect(op.summary).toBeTruthy();
        expect(op.tags?.length).toBe(1);
      }
    }
  });

  it("is the same document on a second ask, and holds no data of the service", async () => {
    h = await startProxy({ core: new FakeCore() });
    await h.setup();
    const secret = "https://feeds.example/secret-token-123";
    expect(
      (await h.request("POST", "/subscriptions", { body: { name: "Mine", url: secret } })).status,
    ).toBe(200);
    const first = await h.request("GET", "/openapi.json", { noCookie: true });
    const second = await h.request("GET", "/openapi.json");
    expect(second.text).toBe(first.text);
    expect(first.text).not.toContain("secret-token-123");
    expect(first.text).not.toContain(h.csrf);
  });
});

describe("PROXY_API", () => {
  it("has one entry for each route the service's route table registered", async () => {
    h = await startProxy({ core: new FakeCore() });
    const registered = h.service.ctx.routes.routes.map((r) => `${r.method} ${r.path}`).sort();
    expect(Object.keys(PROXY_API).sort()).toEqual(registered);
  });

  it("describes the real answers: status, settings, nodes, rules and subscriptions parse with their schemas", async () => {
    const feeds = new FakeFeeds();
    feeds.responses.set(
      FEED,
      JSON.stringify([
        {
          name: "Tokyo",
          type: "ss",
          server: "10.0.0.1",
          port: 1,
          password: "p",
          cipher: "aes-128-gcm",
        },
        {
          name: "Osaka",
          type: "ss",
          server: "10.0.0.2",
          port: 2,
          password: "p",
          cipher: "aes-128-gcm",
        },
      ]),
    );
    h = await startProxy({ core: new FakeCore(), feeds });
    await h.setup();

    const created = await h.request("POST", "/subscriptions", {
      body: { name: "Home", url: FEED },
    });
    expect(created.status).toBe(200);
    const { id } = SubscriptionSavedSchema.parse(created.json);
    expect((await h.request("POST", `/subscriptions/${id}/refresh`)).status).toBe(200);
    const rule = await h.request("POST", "/rules", {
      body: { type: "DOMAIN-SUFFIX", value: "Example.COM", action: "PROXY" },
    });
    expect(rule.status).toBe(200);
    RuleSavedSchema.parse(rule.json);

    const status = StatusSchema.parse((await h.request("GET", "/status")).json);
    expect(status.subscriptionCount).toBe(1);
    expect(status.nodeCount).toBe(2);

    const settings = SettingsSchema.parse((await h.request("GET", "/settings")).json);
    expect(settings).toEqual(status.settings);

    const nodes = NodeListSchema.parse((await h.request("GET", "/nodes")).json);
    expect(nodes.map((n) => n.name).sort()).toEqual(["Osaka", "Tokyo"]);

    const rules = RulesViewSchema.parse((await h.request("GET", "/rules")).json);
    expect(rules.custom).toEqual([
      {
        id: expect.any(String),
        type: "DOMAIN-SUFFIX",
        value: "example.com",
        action: "PROXY",
        enabled: true,
      },
    ]);

    const subscriptions = SubscriptionListSchema.parse(
      (await h.request("GET", "/subscriptions")).json,
    );
    expect(subscriptions.map((s) => [s.name, s.nodeCount])).toEqual([["Home", 2]]);

    // The strict request schemas refuse what the routes refuse: a stored rule sent back.
    const stored = rules.custom[0];
    const again = await h.request("PUT", `/rules/${stored.id}`, { body: stored });
    expect(again.status).toBe(400);
    expect(again.json.code).toBe("request.unknown_field");
    const probation = ProbationStateSchema.parse(
      (await h.request("GET", "/system/probation")).json,
    );
    expect(probation).toEqual({ probation: null, notice: null });
  });
});
