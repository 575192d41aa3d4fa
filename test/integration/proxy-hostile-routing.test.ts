import { afterEach, describe, expect, it } from "vitest";
import { countRoutes } from "../../server/http/route-table.js";
import { FakeCore, PASSWORD, startProxy, type ProxyHarness } from "./proxy-api-harness.js";

let h: ProxyHarness;
afterEach(async () => h?.close());

const start = (opts: Parameters<typeof startProxy>[0] = {}) =>
  startProxy({ core: new FakeCore(), ...opts });

describe("paths in another letter case or with a trailing slash", () => {
  it("answers 404 to GET /System/backup without a session and leaks nothing", async () => {
    h = await start();
    await h.setup();
    for (const path of ["/System/backup", "/system/Backup", "/SYSTEM/BACKUP", "/system/backup/"]) {
      const r = await h.request("GET", path, { noCookie: true });
      expect(r.status, path).toBe(404);
      expect(r.text).not.toContain("subscriptions");
    }
    // The exact path still needs the session.
    expect((await h.request("GET", "/system/backup", { noCookie: true })).status).toBe(401);
  });

  it("answers 404 to POST /Subscriptions and creates nothing", async () => {
    h = await start();
    await h.setup();
    const body = { name: "sneaky", url: "http://127.0.0.1:1/feed" };
    for (const path of ["/Subscriptions", "/subscriptions/"]) {
      const r = await h.request("POST", path, { body, noCookie: true, noCsrf: true });
      expect(r.status, path).toBe(404);
    }
    const list = await h.request("GET", "/subscriptions");
    expect(list.status).toBe(200);
    expect(list.json).toEqual([]);
  });

  it("answers 404 to POST /Auth/logout and 401 to POST /auth/logout without a session (never 500)", async () => {
    h = await start();
    await h.setup();
    expect((await h.request("POST", "/Auth/logout", { noCookie: true })).status).toBe(404);
    expect((await h.request("POST", "/auth/logout/", { noCookie: true })).status).toBe(404);
    expect((await h.request("POST", "/auth/logout", { noCookie: true })).status).toBe(401);
  });

  it("answers 404 under another spelling of the API prefix", async () => {
    h = await start();
    await h.setup();
    for (const prefix of ["/API/v1", "/api/V1", "/api/v1/"]) {
      const r = await fetch(`${h.origin}${prefix}/system/backup`, {
        headers: { cookie: h.cookie ?? "" },
      });
      expect(r.status, prefix).toBe(404);
    }
  });
});

describe("route table", () => {
  it("lists every route the app answers, with only the sign-in routes and the API document open", async () => {
    h = await start();
    const routes = h.service.ctx.routes.routes;
    expect(countRoutes(h.service.app.router)).toBe(routes.length);
    const open = routes.filter((r) => r.access === "open").map((r) => `${r.method} ${r.path}`);
    // Written out here, not read from the contract: opening one more route must fail a test.
    expect(open.sort()).toEqual(
      [
        "GET /auth/status",
        "GET /health",
        "GET /openapi.json",
        "POST /auth/login",
        "POST /auth/setup",
      ].sort(),
    );
    expect(routes.length).toBeGreaterThan(30);
  });
});

describe("Host", () => {
  it("answers 421 to a Host that is not this machine (DNS rebinding)", async () => {
    h = await start();
    for (const host of [`evil.example:${h.port}`, "evil.example", `0.0.0.0:${h.port}`, "[::"]) {
      const r = await h.request("GET", "/auth/status", { headers: { host } });
      expect(r.status, host).toBe(421);
    }
  });

  it("accepts localhost, loopback and this machine's addresses in any letter case", async () => {
    h = await start({
      networkInterfaces: () => ({
        eth0: [
          {
            address: "192.168.1.20",
            netmask: "255.255.255.0",
            family: "IPv4",
            mac: "00:00:00:00:00:00",
            internal: false,
            cidr: "192.168.1.20/24",
          },
        ],
      }),
    });
    for (const host of [
      `localhost:${h.port}`,
      `LocalHost:${h.port}`,
      `127.0.0.1:${h.port}`,
      `[::1]:${h.port}`,
      `192.168.1.20:${h.port}`,
    ]) {
      const r = await h.request("GET", "/auth/status", { headers: { host } });
      expect(r.status, host).toBe(200);
    }
  });

  it("accepts a host name the operator configured", async () => {
    h = await start({ allowedHosts: ["Gateway.LAN"] });
    const ok = await h.request("GET", "/auth/status", { headers: { host: "gateway.lan:8080" } });
    expect(ok.status).toBe(200);
    const other = await h.request("GET", "/auth/status", { headers: { host: "other.lan" } });
    expect(other.status).toBe(421);
  });
});

describe("POST /auth/login under parallel guessing", () => {
  it("checks at most 5 of 40 parallel wrong passwords; the rest answer 429", async () => {
    h = await start();
    await h.setup();
    const replies = await Promise.all(
      Array.from({ length: 40 }, () =>
        h.request("POST", "/auth/login", { body: { password: "wrong guess" }, noCookie: true }),
      ),
    );
    const counts = new Map<number, number>();
    for (const r of replies) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ 401: 5, 429: 35 });
    for (const r of replies.filter((x) => x.status === 429)) {
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
    }
    // Even the right password waits now: the limit is per client, counted before the check.
    const right = await h.request("POST", "/auth/login", {
      body: { password: PASSWORD },
      noCookie: true,
    });
    expect(right.status).toBe(429);
  });

  it("takes a successful attempt back, so a right password never uses up the allowance", async () => {
    h = await start();
    await h.setup();
    for (let i = 0; i < 8; i++) {
      const r = await h.request("POST", "/auth/login", {
        body: { password: PASSWORD },
        noCookie: true,
      });
      expect(r.status).toBe(200);
    }
  });
});

describe("origin headers on state-changing requests", () => {
  it("refuses Sec-Fetch-Site: cross-site in any letter case", async () => {
    h = await start();
    await h.setup();
    for (const value of ["cross-site", "Cross-Site", " CROSS-SITE"]) {
      const r = await h.request("POST", "/auth/logout", { headers: { "sec-fetch-site": value } });
      expect(r.status, value).toBe(403);
    }
  });

  it("compares Origin by scheme and host case-insensitively, and refuses a different X-Service-Origin", async () => {
    h = await start();
    await h.setup();
    const settings = (await h.request("GET", "/settings")).json;
    const upper = await h.request("PUT", "/settings", {
      body: settings,
      headers: { origin: `HTTP://127.0.0.1:${h.port}` },
    });
    expect(upper.status, upper.text).toBe(200);
    const mismatch = await h.request("PUT", "/settings", {
      body: settings,
      headers: { "x-service-origin": "http://evil.example" },
    });
    expect(mismatch.status).toBe(403);
    const bad = await h.request("PUT", "/settings", {
      body: settings,
      headers: { origin: "::::" },
    });
    expect(bad.status).toBe(403);
  });
});

describe("malformed percent-encoding in a path parameter", () => {
  it("answers 400 with a sentence, never 500", async () => {
    h = await start();
    await h.setup();
    for (const [method, path] of [
      ["DELETE", "/subscriptions/%ZZ"],
      ["PUT", "/rules/%E0%A4%A"],
      ["DELETE", "/connections/%"],
    ]) {
      const r = await h.request(method, path, { body: {} });
      expect(r.status, path).toBe(400);
      expect(r.json).toEqual({
        error: "The address is not correctly encoded",
        code: "request.bad_encoding",
      });
    }
  });
});
