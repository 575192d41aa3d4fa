import { afterEach, describe, expect, it } from "vitest";
import type { FeedSource } from "../../server/proxy/domain/refresher.js";
import { isStale } from "../../server/proxy/domain/refresher.js";
import { SubscriptionError } from "../../server/proxy/subscriptions/errors.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

const HOUR = 3_600_000;
let h: ProxyHarness | null = null;

afterEach(async () => {
  await h?.close();
  h = null;
});

/** A feed with one node, or a refused download while `down`. */
function feed() {
  const state = { down: false };
  const source: FeedSource = {
    async fetch() {
      if (state.down)
        throw new SubscriptionError("subscription.refused", "The server refused the connection");
      return { body: "x", usage: null };
    },
    parse: () => ({
      nodes: [
        {
          name: "A",
          type: "ss",
          server: "a.example",
          port: 1,
          cipher: "aes-128-gcm",
          password: "p",
        },
      ],
      skipped: 0,
    }),
  };
  return { state, source };
}

async function add(intervalHours: number): Promise<string> {
  const r = await h!.request("POST", "/subscriptions", {
    body: {
      name: `every ${intervalHours}h`,
      url: `http://feeds.test/${intervalHours}`,
      enabled: true,
      intervalHours,
    },
  });
  expect(r.status).toBe(200);
  return r.json.id as string;
}

async function stale(): Promise<Record<string, boolean>> {
  const list = await h!.request("GET", "/subscriptions");
  return Object.fromEntries(
    (list.json as Array<{ name: string; stale: boolean }>).map((s) => [s.name, s.stale]),
  );
}

describe("stale subscriptions", () => {
  it("are marked once their last success, or creation, is more than twice their interval ago", async () => {
    const f = feed();
    h = await startProxy({ core: new FakeCore(), feeds: f.source });
    await h.setup();
    const hourly = await add(1);
    await add(0);
    expect(await stale()).toEqual({ "every 1h": false, "every 0h": false });
    h.clock.advance(2 * HOUR);
    expect(await stale()).toEqual({ "every 1h": false, "every 0h": false });
    h.clock.advance(1);
    // Never refreshed, created more than 2 h ago; an interval of 0 is never stale.
    expect(await stale()).toEqual({ "every 1h": true, "every 0h": false });

    expect((await h.request("POST", `/subscriptions/${hourly}/refresh`, { body: {} })).status).toBe(
      200,
    );
    expect((await stale())["every 1h"]).toBe(false);
    h.clock.advance(HOUR);
    // A failed refresh keeps the nodes and does not count as a success.
    f.state.down = true;
    expect((await h.request("POST", `/subscriptions/${hourly}/refresh`, { body: {} })).status).toBe(
      400,
    );
    h.clock.advance(HOUR);
    expect((await stale())["every 1h"]).toBe(false);
    h.clock.advance(1);
    expect((await stale())["every 1h"]).toBe(true);
    const list = await h.request("GET", "/subscriptions");
    expect(list.json.find((s: { id: string }) => s.id === hourly).nodeCount).toBe(1);
  });

  it("without a creation time (restored from a backup) count from the last success only", () => {
    const now = Date.UTC(2026, 0, 10);
    expect(isStale({ intervalHours: 1, updatedAt: null, createdAt: null }, now)).toBe(false);
    const old = new Date(now - 3 * HOUR).toISOString();
    expect(isStale({ intervalHours: 1, updatedAt: old, createdAt: null }, now)).toBe(true);
    expect(isStale({ intervalHours: 2, updatedAt: old }, now)).toBe(false);
  });
});
