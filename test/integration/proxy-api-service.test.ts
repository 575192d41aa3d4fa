import http from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, refusedPort } from "../helpers/free-ports.js";
import { FakeCore, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

let h: ProxyHarness;
let ui: string | null = null;
afterEach(async () => {
  await h?.close();
  if (ui) rmSync(ui, { recursive: true, force: true });
  ui = null;
});

function get(
  port: number,
  path: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      })
      .on("error", reject);
  });
}

describe("proxy service HTTP basics", () => {
  it("sends security headers and no CORS headers on the API", async () => {
    h = await startProxy({ core: new FakeCore() });
    const r = await h.request("GET", "/auth/status", {
      headers: { origin: "http://evil.example" },
    });
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(r.headers["referrer-policy"]).toBe("no-referrer");
    expect(r.headers["x-frame-options"]).toBe("DENY");
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("answers 400 for malformed JSON and 413 for an oversized body", async () => {
    h = await startProxy({ core: new FakeCore() });
    await h.setup();
    const bad = await h.request("POST", "/rules", { body: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({
      error: "The request body is not valid JSON",
      code: "request.bad_json",
    });
    const big = await h.request("POST", "/rules", {
      body: JSON.stringify({ value: "a".repeat(3 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
  });

  it("serves proxy.html at / with a strict CSP, and other static files", async () => {
    ui = mkdtempSync(join(tmpdir(), "gatehouse-ui-"));
    writeFileSync(join(ui, "proxy.html"), "<!doctype html><title>Proxy</title>");
    writeFileSync(join(ui, "app.js"), "console.log(1)");
    h = await startProxy({ core: new FakeCore(), staticDir: ui });
    const page = await get(h.port, "/");
    expect(page.status).toBe(200);
    expect(page.text).toContain("<title>Proxy</title>");
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
    expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    const js = await get(h.port, "/app.js");
    expect(js.status).toBe(200);
    expect((await get(h.port, "/api/v1/missing")).status).toBe(404);
  });

  it("close() closes the core and the database", async () => {
    const core = new FakeCore();
    h = await startProxy({ core });
    const store = h.service.ctx.store;
    await h.close(false);
    expect(core.closed).toBe(true);
    // The database is closed: reading the stored state fails.
    expect(() => store.getSettings()).toThrow(/not open/);
    rmSync(h.dataDir, { recursive: true, force: true });
    h = await startProxy({ core: new FakeCore() });
  });

  it("start() starts an installed core when it was running at the last shutdown", async () => {
    const first = new FakeCore();
    first.installed = true;
    h = await startProxy({ core: first, autoStartCore: undefined });
    expect(first.running()).toBe(false);
    await first.start(h.service.ctx.store.coreInput());
    await h.close(false);
    const second = new FakeCore();
    second.installed = true;
    h = await startProxy({ core: second, dataDir: h.dataDir, autoStartCore: undefined });
    expect(second.running()).toBe(true);
    expect(second.applied).toHaveLength(1);
    await h.close(false);
    const third = new FakeCore();
    third.installed = true;
    h = await startProxy({ core: third, dataDir: h.dataDir, autoStartCore: undefined });
    expect(third.running()).toBe(true);
    await third.stop();
    await h.close(false);
    const fourth = new FakeCore();
    fourth.installed = true;
    h = await startProxy({ core: fourth, dataDir: h.dataDir, autoStartCore: undefined });
    expect(fourth.running()).toBe(false);
  });

  it("configures everything with the real core layer and no core installed", async () => {
    h = await startProxy({ coreBin: join(tmpdir(), "no-such-mihomo") });
    await h.setup();
    expect(h.service.ctx.core.installed).toBe(false);
    const rule = await h.request("POST", "/rules", {
      body: { type: "DOMAIN", value: "a.example", action: "PROXY", enabled: true },
    });
    expect(rule.status).toBe(200);
    const settings = (await h.request("GET", "/settings")).json;
    // A free port: the service refuses one another program holds.
    const mixedPort = await freePort();
    expect((await h.request("PUT", "/settings", { body: { ...settings, mixedPort } })).status).toBe(
      200,
    );
    expect((await h.request("POST", "/nodes/select", { body: { mode: "auto" } })).status).toBe(200);
    // A feed on a port that refuses every connection.
    const sub = await h.request("POST", "/subscriptions", {
      body: { name: "A", url: `http://127.0.0.1:${await refusedPort()}/x` },
    });
    expect(sub.status).toBe(200);
    expect((await h.request("GET", "/nodes")).json).toEqual([]);
    const config = readFileSync(join(h.dataDir, "proxy", "core", "config.yaml"), "utf8");
    expect(config).toContain(`mixed-port: ${mixedPort}`);
    expect(config).toContain("DOMAIN,a.example,PROXY");
  });
});
