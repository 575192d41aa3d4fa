import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { fetchSubscription, parseSubscription } from "../../server/proxy/subscriptions/index.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

let h: ProxyHarness;
let server: http.Server | null = null;
afterEach(async () => {
  await h?.close();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

const YAML = `proxies:
  - {name: "HK 01", type: ss, server: 10.0.0.1, port: 8388, cipher: aes-128-gcm, password: pw, udp: true}
  - {name: "JP 02", type: trojan, server: 10.0.0.2, port: 443, password: pw}
`;

/** A local subscription server: path -> [status, headers, body]. */
async function feedServer(
  routes: Map<string, [number, Record<string, string>, string]>,
  agents: string[],
): Promise<string> {
  server = http.createServer((req, res) => {
    agents.push(req.headers["user-agent"] ?? "");
    const route = routes.get(req.url ?? "");
    if (!route) return void res.writeHead(404).end("not found");
    res.writeHead(route[0], route[1]).end(route[2]);
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

describe("refresh through the real subscription module", () => {
  it("reads usage from subscription-userinfo, sends a clash.meta User-Agent, keeps nodes on failure", async () => {
    const routes = new Map<string, [number, Record<string, string>, string]>();
    const agents: string[] = [];
    const base = await feedServer(routes, agents);
    routes.set("/feed", [
      200,
      {
        "subscription-userinfo": "upload=1024; download=2048; total=1073741824; expire=1893456000",
      },
      YAML,
    ]);
    const core = new FakeCore();
    h = await startProxy({ core, feeds: { fetch: fetchSubscription, parse: parseSubscription } });
    await h.setup();
    const id = (
      await h.request("POST", "/subscriptions", { body: { name: "Real", url: `${base}/feed` } })
    ).json.id;
    const ok = await h.request("POST", `/subscriptions/${id}/refresh`);
    expect(ok.status, ok.text).toBe(200);
    expect(agents[0]).toContain("clash.meta");
    const [item] = (await h.request("GET", "/subscriptions")).json;
    expect(item.usage).toEqual({
      upload: 1024,
      download: 2048,
      total: 1073741824,
      expire: 1893456000,
    });
    expect(item.nodeCount).toBe(2);
    expect(
      (await h.request("GET", "/nodes")).json.map((n: { name: string; type: string }) => [
        n.name,
        n.type,
      ]),
    ).toEqual([
      ["HK 01", "ss"],
      ["JP 02", "trojan"],
    ]);

    routes.set("/feed", [500, {}, "boom"]);
    h.clock.advance(1000);
    const failed = await h.request("POST", `/subscriptions/${id}/refresh`);
    expect(failed.status).toBe(400);
    expect(failed.json.error).toEqual(expect.any(String));
    const [after] = (await h.request("GET", "/subscriptions")).json;
    expect(after).toMatchObject({ nodeCount: 2, lastError: failed.json.error, usage: item.usage });
    expect(after.attemptedAt).not.toBe(after.updatedAt);

    routes.set("/feed", [200, {}, "this is not a subscription"]);
    expect((await h.request("POST", `/subscriptions/${id}/refresh`)).status).toBe(400);
    expect((await h.request("GET", "/nodes")).json).toHaveLength(2);
  });
});
