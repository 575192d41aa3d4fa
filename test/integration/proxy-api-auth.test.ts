import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FakeCore,
  PASSWORD,
  sessionCookie,
  startProxy,
  type ProxyHarness,
} from "./proxy-api-harness.js";

let h: ProxyHarness;
afterEach(async () => h?.close());

const start = () => startProxy({ core: new FakeCore() });

describe("setup token", () => {
  it("is written 0600 while not initialised and deleted by setup", async () => {
    h = await start();
    const file = join(h.dataDir, "proxy", "setup-token");
    const token = h.service.setupToken;
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(readFileSync(file, "utf8").trim()).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await h.setup();
    expect(existsSync(file)).toBe(false);
    expect(h.service.setupToken).toBeNull();
  });
});

describe("POST /auth/setup", () => {
  it("answers {ok, csrf} with a 24-hour session cookie", async () => {
    h = await start();
    const r = await h.request("POST", "/auth/setup", {
      body: { token: h.service.setupToken, password: PASSWORD },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true, csrf: expect.stringMatching(/.{20,}/) });
    const line = (r.headers["set-cookie"] ?? [])[0];
    expect(line).toMatch(/^svc_session=[^;]+; Max-Age=86400; Path=\/; HttpOnly; SameSite=Strict/);
    h.cookie = sessionCookie(r);
    const status = await h.request("GET", "/auth/status");
    expect(status.json).toEqual({ initialized: true, authenticated: true, csrf: r.json.csrf });
  });

  it("answers 401 for a wrong token and 400 for a password outside 12..72 bytes", async () => {
    h = await start();
    const token = h.service.setupToken;
    expect(
      (await h.request("POST", "/auth/setup", { body: { token: "nope", password: PASSWORD } }))
        .status,
    ).toBe(401);
    expect(
      (await h.request("POST", "/auth/setup", { body: { token, password: "short" } })).status,
    ).toBe(400);
    // 12 bytes counted in UTF-8: four 3-byte characters are exactly 12 bytes.
    expect(
      (await h.request("POST", "/auth/setup", { body: { token, password: "a".repeat(73) } }))
        .status,
    ).toBe(400);
    expect((await h.request("POST", "/auth/setup", { body: { token } })).status).toBe(400);
    const ok = await h.request("POST", "/auth/setup", { body: { token, password: "密码密码" } });
    expect(ok.status).toBe(200);
  });

  it("answers 400 once initialised, and the token is gone after a restart too", async () => {
    h = await start();
    const token = h.service.setupToken;
    await h.setup();
    const again = await h.request("POST", "/auth/setup", { body: { token, password: PASSWORD } });
    expect(again.status).toBe(400);
    expect(again.json.error).toEqual(expect.any(String));
    const dataDir = h.dataDir;
    await h.close(false);
    h = await startProxy({ core: new FakeCore(), dataDir });
    expect(h.service.setupToken).toBeNull();
    expect(existsSync(join(dataDir, "proxy", "setup-token"))).toBe(false);
  });
});

describe("GET /auth/status", () => {
  it("answers csrf '' when signed out", async () => {
    h = await start();
    const r = await h.request("GET", "/auth/status");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ initialized: false, authenticated: false, csrf: "" });
  });
});

describe("POST /auth/login", () => {
  it("opens a new session; a wrong password answers 401", async () => {
    h = await start();
    await h.setup();
    const bad = await h.request("POST", "/auth/login", {
      body: { password: "wrong password!" },
      noCookie: true,
    });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({ error: "The password is wrong", code: "auth.password_wrong" });
    const good = await h.request("POST", "/auth/login", {
      body: { password: PASSWORD },
      noCookie: true,
    });
    expect(good.status).toBe(200);
    expect(good.json).toEqual({ ok: true, csrf: expect.any(String) });
    expect(sessionCookie(good)).not.toBe(h.cookie);
  });

  it("answers 429 with Retry-After after 5 failures in 15 minutes, per client", async () => {
    h = await start();
    await h.setup();
    for (let i = 0; i < 5; i++) {
      expect(
        (await h.request("POST", "/auth/login", { body: { password: `wrong-${i}-password` } }))
          .status,
      ).toBe(401);
    }
    const limited = await h.request("POST", "/auth/login", { body: { password: PASSWORD } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBe(900);
    h.clock.advance(10 * 60_000);
    const still = await h.request("POST", "/auth/login", { body: { password: PASSWORD } });
    expect(still.status).toBe(429);
    expect(Number(still.headers["retry-after"])).toBe(300);
    h.clock.advance(5 * 60_000);
    expect((await h.request("POST", "/auth/login", { body: { password: PASSWORD } })).status).toBe(
      200,
    );
  });
});

describe("sessions", () => {
  it("expire 24 hours after sign-in", async () => {
    h = await start();
    await h.setup();
    expect((await h.request("GET", "/settings")).status).toBe(200);
    h.clock.advance(24 * 3600_000 - 1000);
    expect((await h.request("GET", "/settings")).status).toBe(200);
    expect(h.service.ctx.sessionAlive(sessionIdOf(h))).toBe(true);
    h.clock.advance(1000);
    expect((await h.request("GET", "/settings")).status).toBe(401);
    expect((await h.request("GET", "/auth/status")).json).toEqual({
      initialized: true,
      authenticated: false,
      csrf: "",
    });
  });

  it("are required everywhere but setup, login and status", async () => {
    h = await start();
    await h.setup();
    for (const [method, path] of [
      ["GET", "/subscriptions"],
      ["GET", "/nodes"],
      ["GET", "/rules"],
      ["GET", "/settings"],
      ["GET", "/system/backup"],
      ["POST", "/auth/logout"],
      ["PUT", "/auth/password"],
    ] as const) {
      const r = await h.request(method, path, {
        noCookie: true,
        body: method === "GET" ? undefined : {},
      });
      expect(r.status, `${method} ${path}`).toBe(401);
    }
  });

  it("unknown API paths answer 404 JSON", async () => {
    h = await start();
    const r = await h.request("GET", "/nope");
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: "No such endpoint", code: "request.no_endpoint" });
  });
});

function sessionIdOf(h: ProxyHarness): string {
  // The id routes see is the stored hash of the cookie value.
  const value = decodeURIComponent((h.cookie ?? "").split("=")[1]);
  return createHash("sha256").update(value).digest("hex");
}

describe("CSRF and origin", () => {
  it("needs the session's X-CSRF-Token on state-changing requests (403)", async () => {
    h = await start();
    await h.setup();
    const missing = await h.request("POST", "/rules", {
      body: { type: "DOMAIN", value: "a.example", action: "DIRECT", enabled: true },
      noCsrf: true,
    });
    expect(missing.status).toBe(403);
    const wrong = await h.request("POST", "/rules", {
      body: { type: "DOMAIN", value: "a.example", action: "DIRECT", enabled: true },
      headers: { "x-csrf-token": "x".repeat(43) },
    });
    expect(wrong.status).toBe(403);
    expect((await h.request("GET", "/rules")).json.custom).toEqual([]);
  });

  it("refuses a foreign Origin and Sec-Fetch-Site: cross-site, accepts none", async () => {
    h = await start();
    const token = h.service.setupToken;
    const foreign = await h.request("POST", "/auth/setup", {
      body: { token, password: PASSWORD },
      headers: { origin: "http://evil.example" },
    });
    expect(foreign.status).toBe(403);
    const cross = await h.request("POST", "/auth/setup", {
      body: { token, password: PASSWORD },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(cross.status).toBe(403);
    const otherPort = await h.request("POST", "/auth/setup", {
      body: { token, password: PASSWORD },
      headers: { origin: `http://127.0.0.1:${h.port + 1}` },
    });
    expect(otherPort.status).toBe(403);
    const none = await h.request("POST", "/auth/setup", {
      body: { token, password: PASSWORD },
      headers: { origin: undefined },
    });
    expect(none.status).toBe(200);
    expect(h.service.ctx.store.getSettings().mixedPort).toBe(7890);
  });
});

describe("POST /auth/logout", () => {
  it("revokes the session", async () => {
    h = await start();
    await h.setup();
    const r = await h.request("POST", "/auth/logout");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
    expect((await h.request("GET", "/settings")).status).toBe(401);
  });
});

describe("PUT /auth/password", () => {
  it("keeps the caller's session with a new CSRF token and revokes the others", async () => {
    h = await start();
    await h.setup();
    const other = await h.request("POST", "/auth/login", {
      body: { password: PASSWORD },
      noCookie: true,
    });
    const otherCookie = sessionCookie(other) ?? "";
    const oldCsrf = h.csrf;
    const r = await h.request("PUT", "/auth/password", {
      body: { currentPassword: PASSWORD, password: "a brand new password" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true, csrf: expect.any(String) });
    expect(r.json.csrf).not.toBe(oldCsrf);
    const stale = await h.request("POST", "/rules", {
      body: { type: "DOMAIN", value: "a.example", action: "DIRECT", enabled: true },
    });
    expect(stale.status).toBe(403);
    h.csrf = r.json.csrf;
    expect((await h.request("GET", "/settings")).status).toBe(200);
    expect((await h.request("GET", "/settings", { headers: { cookie: otherCookie } })).status).toBe(
      401,
    );
    const oldLogin = await h.request("POST", "/auth/login", {
      body: { password: PASSWORD },
      noCookie: true,
    });
    expect(oldLogin.status).toBe(401);
    const newLogin = await h.request("POST", "/auth/login", {
      body: { password: "a brand new password" },
      noCookie: true,
    });
    expect(newLogin.status).toBe(200);
  });

  it("answers 401 for a wrong current password and 400 for a short new one", async () => {
    h = await start();
    await h.setup();
    const wrong = await h.request("PUT", "/auth/password", {
      body: { currentPassword: "not the password", password: "a brand new password" },
    });
    expect(wrong.status).toBe(401);
    const short = await h.request("PUT", "/auth/password", {
      body: { currentPassword: PASSWORD, password: "short" },
    });
    expect(short.status).toBe(400);
    expect((await h.request("GET", "/settings")).status).toBe(200);
  });
});
