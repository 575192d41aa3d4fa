import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { auditOf, CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";

let h: Harness;
afterEach(async () => h?.close(true));

const login = (password = "admin-password-1", jar?: CookieJar) =>
  h.request("POST", "/admin/login", { body: { username: "admin", password }, jar });

const auditActions = (action: string) => auditOf(h, action);

describe("POST /admin/login, /admin/logout, GET /admin/status", () => {
  it("signs in with an 8-hour fixed cookie, reports status and signs out", async () => {
    h = await startParcel();
    const before = await h.request("GET", "/admin/status");
    expect(before.status).toBe(200);
    expect(before.json).toEqual({ authenticated: false, username: null });

    const r = await login();
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ username: "admin" });
    const cookie = (r.headers["set-cookie"] ?? [])[0];
    expect(cookie).toMatch(/^pt_admin=[^;]+; Max-Age=28800; Path=\/; HttpOnly; SameSite=Strict/);
    // Only a hash of the token is stored.
    const token = h.jar.cookies.get("pt_admin") ?? "";
    // The token itself finds no session; its SHA-256 does.
    expect(h.repos.identity.adminSession(token)).toBeUndefined();
    const hashed = createHash("sha256").update(token).digest("hex");
    expect(h.repos.identity.adminSession(hashed)).toMatchObject({ username: "admin" });

    expect((await h.request("GET", "/admin/status")).json).toEqual({
      authenticated: true,
      username: "admin",
    });
    expect((await h.request("GET", "/admin/stats")).status).toBe(200);
    expect(auditActions("admin.login")[0].source).toBe("admin:admin@127.0.0.1");

    const out = await h.request("POST", "/admin/logout");
    expect(out.status).toBe(200);
    expect(h.jar.cookies.has("pt_admin")).toBe(false);
    expect(auditActions("admin.logout")).toHaveLength(1);
    // The old token no longer works even when replayed.
    const replay = new CookieJar();
    replay.cookies.set("pt_admin", token);
    expect((await h.request("GET", "/admin/stats", { jar: replay })).status).toBe(401);
    expect((await h.request("GET", "/admin/status", { jar: replay })).json.authenticated).toBe(
      false,
    );
  });

  it("ends the session after 8 hours even while it is used (not sliding)", async () => {
    h = await startParcel();
    await login();
    h.clock.advance(4 * 3600 * 1000);
    expect((await h.request("GET", "/admin/stats")).status).toBe(200);
    h.clock.advance(4 * 3600 * 1000 - 1000);
    expect((await h.request("GET", "/admin/stats")).status).toBe(200);
    h.clock.advance(1000);
    expect((await h.request("GET", "/admin/stats")).status).toBe(401);
  });

  it("answers 401 to a wrong password or user and 400 to a malformed body", async () => {
    h = await startParcel();
    const wrong = await login("nope");
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: expect.any(String), code: "admin.login_wrong" });
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    const who = await h.request("POST", "/admin/login", {
      body: { username: "root", password: "admin-password-1" },
    });
    expect(who.status).toBe(401);
    expect(auditActions("admin.login_fail")).toHaveLength(2);
    expect((await h.request("POST", "/admin/login", { body: { username: "admin" } })).status).toBe(
      400,
    );
    expect((await h.request("POST", "/admin/login", { body: "{not json" })).status).toBe(400);
    expect(
      (await h.request("POST", "/admin/login", { body: { username: "admin", password: 5 } }))
        .status,
    ).toBe(400);
  });

  it("refuses sign-in with 429 after 5 failures in 15 minutes, across a restart", async () => {
    h = await startParcel();
    for (let i = 0; i < 5; i++) expect((await login("wrong")).status).toBe(401);
    const limited = await login();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBe(900);
    h = await h.restart();
    const still = await login();
    expect(still.status).toBe(429);
    h.clock.advance(600 * 1000);
    expect(Number((await login()).headers["retry-after"])).toBe(300);
    h.clock.advance(300 * 1000);
    expect((await login()).status).toBe(200);
  });

  it("counts failures per client address: a success does not use up the allowance", async () => {
    h = await startParcel();
    for (let i = 0; i < 4; i++) expect((await login("wrong")).status).toBe(401);
    expect((await login()).status).toBe(200);
    expect((await login()).status).toBe(200);
    expect((await login("wrong")).status).toBe(401);
    expect((await login()).status).toBe(429);
  });

  it("holds the limit against parallel guesses", async () => {
    h = await startParcel();
    const replies = await Promise.all(Array.from({ length: 8 }, () => login("wrong")));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(auditActions("admin.login_fail")).toHaveLength(5);
  });

  it("names the cookie pt_admin_http over HTTP when an HTTPS entry exists too", async () => {
    h = await startParcel({ entries: ["http://127.0.0.1:PORT", "https://gw.example"] });
    const r = await login();
    expect(r.status).toBe(200);
    const cookie = (r.headers["set-cookie"] ?? [])[0];
    expect(cookie).toMatch(/^pt_admin_http=[^;]+; Max-Age=28800;/);
    expect(cookie).not.toMatch(/Secure/);
    expect((await h.request("GET", "/admin/status")).json.authenticated).toBe(true);
  });

  it("needs an allowed Origin to sign in", async () => {
    h = await startParcel();
    const r = await h.request("POST", "/admin/login", {
      body: { username: "admin", password: "admin-password-1" },
      noOrigin: true,
    });
    expect(r.status).toBe(403);
  });
});

describe("admin endpoints without a session", () => {
  it("answer 401 on every endpoint", async () => {
    h = await startParcel();
    const calls: Array<[string, string, unknown?]> = [
      ["GET", "/admin/stats"],
      ["GET", "/admin/parcels"],
      ["POST", "/admin/parcels/x/delete"],
      ["POST", "/admin/files/x/delete"],
      ["POST", "/admin/parcels/x/reissue"],
      ["GET", "/admin/policy"],
      ["PUT", "/admin/policy", { max_files: 3 }],
      ["GET", "/admin/runtime"],
      ["PUT", "/admin/runtime", { file_budget: 3 }],
      ["GET", "/admin/audit"],
      ["POST", "/admin/cleanup"],
    ];
    const bad = new CookieJar();
    bad.cookies.set("pt_admin", "forged");
    for (const jar of [new CookieJar(), bad]) {
      for (const [method, path, body] of calls) {
        const r = await h.request(method, path, { body, jar });
        expect([path, r.status]).toEqual([path, 401]);
        expect(r.json).toEqual({ error: expect.any(String), code: "admin.sign_in_required" });
      }
    }
    expect(h.service.ctx.policy().max_files).toBe(100);
  });
});

describe("GET/PUT /admin/policy and /admin/runtime", () => {
  it("changes any subset, answers the whole object and audits the changed keys", async () => {
    h = await startParcel();
    await login();
    const got = await h.request("GET", "/admin/policy");
    expect(got.json).toMatchObject({ max_files: 100, code_length: 6, password_attempts: 5 });
    const r = await h.request("PUT", "/admin/policy", {
      body: { max_files: 3, code_length: 8, default_days: 7 },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ...got.json, max_files: 3, code_length: 8 });
    expect((await h.request("GET", "/policy")).json.max_files).toBe(3);
    const audit = auditActions("admin.policy");
    expect(audit[0].target).toBe("policy");
    expect(audit[0].detail).toEqual({ changed: { max_files: 3, code_length: 8 } });

    const rt = await h.request("PUT", "/admin/runtime", { body: { file_budget: 0 } });
    expect(rt.status).toBe(200);
    expect(rt.json).toEqual({
      file_budget: 0,
      data_budget_bytes: 107374182400,
      disk_headroom_bytes: 2147483648,
      audit_retention_days: 90,
      audit_retention_rows: 100000,
      audit_content_budget_bytes: 67108864,
    });
    expect(auditActions("admin.runtime")[0].detail).toEqual({
      changed: { file_budget: 0 },
    });
    // Settings survive a restart.
    h = await h.restart();
    await login();
    expect((await h.request("GET", "/admin/policy")).json.max_files).toBe(3);
    expect((await h.request("GET", "/admin/runtime")).json.file_budget).toBe(0);
  });

  it("answers 400 to unknown keys, wrong types, out-of-range values and cap < renew days", async () => {
    h = await startParcel();
    await login();
    const bad: unknown[] = [
      { nope: 1 },
      { max_files: "3" },
      { max_files: 0 },
      { max_files: 1.5 },
      { code_length: 5 },
      { code_length: 17 },
      { renew_days: 31 },
      { renew_days: 10, renew_cap_days: 9 },
      { renew_days: 31, renew_cap_days: 40 },
      { renew_cap_days: 2 },
      { max_days: 3651 },
      { password_attempts: 101 },
      { pickup_failures_per_ip: 100001 },
      { renewal_mode: "forever" },
      { uploads_enabled: "yes" },
      [],
      "x",
    ];
    for (const body of bad) {
      const r = await h.request("PUT", "/admin/policy", { body });
      expect([body, r.status]).toEqual([body, 400]);
      expect(r.json.error).toEqual(expect.any(String));
    }
    expect((await h.request("PUT", "/admin/policy", { body: { renew_cap_days: 3 } })).status).toBe(
      200,
    );
    const badRuntime: unknown[] = [
      { extra: 1 },
      { file_budget: -1 },
      { data_budget_bytes: "1" },
      { audit_retention_days: 0 },
      { audit_retention_rows: 0 },
      { audit_content_budget_bytes: 1.5 },
    ];
    for (const body of badRuntime) {
      const r = await h.request("PUT", "/admin/runtime", { body });
      expect([body, r.status]).toEqual([body, 400]);
    }
    expect(h.service.ctx.runtime().file_budget).toBe(10000);
    expect(h.service.ctx.policy().renew_cap_days).toBe(3);
    expect(auditActions("admin.runtime")).toHaveLength(0);
  });
});
