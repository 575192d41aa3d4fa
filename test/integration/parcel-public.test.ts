import { afterEach, describe, expect, it } from "vitest";
import { CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";

let h: Harness;
afterEach(async () => h?.close(true));

describe("GET /health", () => {
  it("answers on any Host with initialized and version", async () => {
    h = await startParcel();
    const r = await h.request("GET", "/health", { headers: { host: "unknown.example:1" } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true, initialized: true, version: expect.any(String) });
  });
});

describe("GET /policy", () => {
  it("sets a 7-day visitor cookie and answers the public policy with entries", async () => {
    h = await startParcel();
    const r = await h.request("GET", "/policy");
    expect(r.status).toBe(200);
    expect(r.json.public_url).toBe(h.origin);
    expect(r.json.access_urls).toEqual([h.origin, `http://localhost:${h.port}`]);
    expect(r.json.visitor_expires).toBe(h.service.ctx.now() + 7 * 86400);
    expect(r.json.code_length).toBe(6);
    expect(r.json).not.toHaveProperty("password_attempts");
    expect(r.json).not.toHaveProperty("pickup_failures_per_ip");
    const cookie = (r.headers["set-cookie"] ?? [])[0];
    expect(cookie).toMatch(/^pt_visitor=[^;]+; Max-Age=604800; Path=\/; HttpOnly; SameSite=Strict/);
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    const again = await h.request("GET", "/policy");
    expect(again.headers["set-cookie"]).toBeUndefined();
    expect(again.json.visitor_expires).toBe(r.json.visitor_expires);
  });

  it("answers 421 for a Host that is no entry", async () => {
    h = await startParcel();
    const r = await h.request("GET", "/policy", { headers: { host: "evil.example" } });
    expect(r.status).toBe(421);
    expect(r.json.error).toEqual(expect.any(String));
  });

  it("follows the entry named by X-Service-Origin and names cookies by scheme when HTTP and HTTPS mix", async () => {
    h = await startParcel({ entries: ["http://127.0.0.1:PORT", "https://gw.example"] });
    const r = await h.request("GET", "/policy", {
      headers: { "x-service-origin": "https://gw.example" },
    });
    expect(r.json.public_url).toBe("https://gw.example");
    expect((r.headers["set-cookie"] ?? [])[0]).toMatch(/^pt_visitor=.*; Secure$/);
    const plain = await h.request("GET", "/policy", { jar: new CookieJar() });
    expect((plain.headers["set-cookie"] ?? [])[0]).toMatch(/^pt_visitor_http=/);
    expect((plain.headers["set-cookie"] ?? [])[0]).not.toMatch(/Secure/);
  });
});

describe("unknown paths", () => {
  it("answers 404 JSON", async () => {
    h = await startParcel();
    const r = await h.request("GET", "/nope");
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: "No such endpoint", code: "request.no_endpoint" });
  });
});
