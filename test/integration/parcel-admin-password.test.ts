import { afterEach, describe, expect, it } from "vitest";
import { auditOf, CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";

let h: Harness;
afterEach(async () => h?.close(true));

const OLD = "admin-password-1";

async function signIn(jar: CookieJar, password = OLD) {
  return h.request("POST", "/admin/login", { jar, body: { username: "admin", password } });
}

describe("PUT /admin/password", () => {
  it("changes the password given the current one, and ends every other session", async () => {
    h = await startParcel();
    const mine = new CookieJar();
    const other = new CookieJar();
    expect((await signIn(mine)).status).toBe(200);
    expect((await signIn(other)).status).toBe(200);
    const r = await h.request("PUT", "/admin/password", {
      jar: mine,
      body: { current_password: OLD, password: "a new password 2" },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
    // This session goes on; the other one ended.
    expect((await h.request("GET", "/admin/stats", { jar: mine })).status).toBe(200);
    expect((await h.request("GET", "/admin/stats", { jar: other })).status).toBe(401);
    expect((await signIn(new CookieJar())).status).toBe(401);
    expect((await signIn(new CookieJar(), "a new password 2")).status).toBe(200);
    const audit = await h.request("GET", "/admin/audit?action=admin.password", { jar: mine });
    expect(audit.json.total).toBe(1);
  });

  it("refuses a wrong current password, counts it as a failed sign-in, and changes nothing", async () => {
    h = await startParcel();
    const jar = new CookieJar();
    expect((await signIn(jar)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await h.request("PUT", "/admin/password", {
        jar,
        body: { current_password: `wrong ${i}`, password: "a new password 2" },
      });
      statuses.push(r.status);
      if (r.status === 401) expect(r.json.code).toBe("admin.current_password_wrong");
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // Each wrong current password is audited, naming the signed-in administrator; the refusal
    // by the limit is not a guess that reached the check.
    const fails = auditOf(h, "admin.password_fail").map(({ source, target }) => ({
      source,
      target,
    }));
    expect(fails).toEqual(Array(5).fill({ source: "admin:admin@127.0.0.1", target: "system" }));
    expect((await signIn(new CookieJar(), OLD)).status).toBe(429);
    h.clock.advance(16 * 60 * 1000);
    expect((await signIn(new CookieJar(), OLD)).status).toBe(200);
  });

  it("refuses a new password that is too short or too long, naming the limit", async () => {
    h = await startParcel();
    const jar = new CookieJar();
    expect((await signIn(jar)).status).toBe(200);
    const short = await h.request("PUT", "/admin/password", {
      jar,
      body: { current_password: OLD, password: "short" },
    });
    expect(short.status).toBe(400);
    expect(short.json).toMatchObject({ code: "admin.password_short", params: { min: 12 } });
    const long = await h.request("PUT", "/admin/password", {
      jar,
      body: { current_password: OLD, password: "x".repeat(73) },
    });
    expect(long.json).toMatchObject({ code: "admin.password_long", params: { max: 72 } });
    expect((await signIn(new CookieJar(), OLD)).status).toBe(200);
  });

  it("needs the administrator's session and a JSON body", async () => {
    h = await startParcel();
    const r = await h.request("PUT", "/admin/password", {
      jar: new CookieJar(),
      body: { current_password: OLD, password: "a new password 2" },
    });
    expect(r.status).toBe(401);
    const jar = new CookieJar();
    await signIn(jar);
    const bad = await h.request("PUT", "/admin/password", { jar, body: { password: 5 } });
    expect(bad.status).toBe(400);
  });
});
