import { afterEach, describe, expect, it } from "vitest";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

let h: ProxyHarness;
let core: FakeCore;
afterEach(async () => h?.close());

async function start(): Promise<void> {
  core = new FakeCore();
  h = await startProxy({ core });
  await h.setup();
}

const rule = (patch: Record<string, unknown> = {}) => ({
  type: "DOMAIN-SUFFIX",
  value: "example.com",
  action: "DIRECT",
  enabled: true,
  ...patch,
});

async function addRule(patch: Record<string, unknown> = {}): Promise<string> {
  const r = await h.request("POST", "/rules", { body: rule(patch) });
  expect(r.status).toBe(200);
  return r.json.id;
}

describe("duplicate rules", () => {
  it("answers 409 naming the rule already in the list, and stores nothing", async () => {
    await start();
    await addRule({ value: "first.example" });
    const id = await addRule();
    const applies = core.applied.length;
    // Same type and value after normalising (case, surrounding spaces), another action.
    const r = await h.request("POST", "/rules", {
      body: rule({ value: "  EXAMPLE.com ", action: "PROXY" }),
    });
    expect(r.status).toBe(409);
    expect(r.json).toEqual({
      error: "DOMAIN-SUFFIX example.com is already rule 2 (DIRECT); edit that rule instead",
      code: "rule.duplicate",
      params: { type: "DOMAIN-SUFFIX", value: "example.com", position: 2, action: "DIRECT" },
      ruleId: id,
    });
    expect((await h.request("GET", "/rules")).json.custom).toHaveLength(2);
    expect(core.applied.length).toBe(applies);
  });

  it("keeps rules of another type with the same value apart", async () => {
    await start();
    await addRule();
    await addRule({ type: "DOMAIN" });
    await addRule({ type: "IP-CIDR", value: "10.0.0.0/8" });
    const dup = await h.request("POST", "/rules", {
      body: rule({ type: "IP-CIDR", value: "10.1.2.3/8" }),
    });
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe("rule.duplicate");
    expect(dup.json.params.position).toBe(3);
  });

  it("refuses an edit that would copy another rule, but saves a rule over itself", async () => {
    await start();
    const a = await addRule({ value: "a.example" });
    const b = await addRule({ value: "b.example" });
    const clash = await h.request("PUT", `/rules/${b}`, { body: rule({ value: "a.example" }) });
    expect(clash.status).toBe(409);
    expect(clash.json).toMatchObject({
      code: "rule.duplicate",
      params: { position: 1 },
      ruleId: a,
    });
    const self = await h.request("PUT", `/rules/${b}`, {
      body: rule({ value: "b.example", enabled: false }),
    });
    expect(self.status).toBe(200);
    const custom = (await h.request("GET", "/rules")).json.custom;
    expect(custom).toEqual([
      { id: a, type: "DOMAIN-SUFFIX", value: "a.example", action: "DIRECT", enabled: true },
      { id: b, type: "DOMAIN-SUFFIX", value: "b.example", action: "DIRECT", enabled: false },
    ]);
  });

  it("still answers 400 for an unknown rule id before looking for duplicates", async () => {
    await start();
    await addRule();
    const r = await h.request("PUT", `/rules/${"f".repeat(24)}`, { body: rule() });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe("Unknown rule");
  });
});

describe("duplicate subscription addresses", () => {
  const FEED = "http://feeds.test/a?token=s3cret";

  async function create(body: Record<string, unknown>) {
    return h.request("POST", "/subscriptions", { body });
  }

  it("answers 409 naming the subscription that has the address, without echoing it", async () => {
    await start();
    const first = await create({ name: "Home feed", url: FEED });
    expect(first.status).toBe(200);
    // Letter case of scheme and host and surrounding spaces do not make another feed.
    const r = await create({ name: "Again", url: "  HTTP://Feeds.TEST/a?token=s3cret " });
    expect(r.status).toBe(409);
    expect(r.json).toEqual({
      error: 'The subscription "Home feed" already uses this address',
      code: "subscription.duplicate",
      params: { name: "Home feed" },
      subscriptionId: first.json.id,
    });
    expect(r.text).not.toContain("s3cret");
    const list = (await h.request("GET", "/subscriptions")).json as Array<{ name: string }>;
    expect(list.map((s) => s.name)).toEqual(["Home feed"]);
  });

  it("accepts another path or query of the same host", async () => {
    await start();
    expect((await create({ name: "A", url: FEED })).status).toBe(200);
    expect((await create({ name: "B", url: "http://feeds.test/a?token=other" })).status).toBe(200);
    expect((await create({ name: "C", url: "http://feeds.test/b?token=s3cret" })).status).toBe(200);
  });

  it("refuses an edit onto another subscription's address; editing itself is fine", async () => {
    await start();
    const a = (await create({ name: "A", url: FEED })).json.id as string;
    const b = (await create({ name: "B", url: "http://feeds.test/b" })).json.id as string;
    const clash = await h.request("PUT", `/subscriptions/${b}`, {
      body: { name: "B", url: FEED, enabled: true, intervalHours: 24 },
    });
    expect(clash.status).toBe(409);
    expect(clash.json).toMatchObject({ code: "subscription.duplicate", subscriptionId: a });
    const renamed = await h.request("PUT", `/subscriptions/${a}`, {
      body: { name: "A renamed", url: FEED, enabled: true, intervalHours: 6 },
    });
    expect(renamed.status).toBe(200);
    const list = (await h.request("GET", "/subscriptions")).json as Array<{
      name: string;
      url: string;
    }>;
    expect(list.map((s) => [s.name, s.url])).toEqual([
      ["A renamed", FEED],
      ["B", "http://feeds.test/b"],
    ]);
  });
});
