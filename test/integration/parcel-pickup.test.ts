import { afterEach, describe, expect, it } from "vitest";
import { codeHash } from "../../server/parcel/domain/share.js";
import { CookieJar, type Harness } from "../helpers/parcel-harness.js";
import { bearer } from "../helpers/parcel-uploads.js";
import { countRows, storeCodeHash } from "../helpers/raw-db.js";
import {
  adminJar,
  auditRows,
  parcelRow,
  recipient,
  requestFrom,
  resolve,
  shareParcel,
  startPickup,
} from "./parcel-pickup-support.js";

let h: Harness;
afterEach(async () => h?.close(true));

const DAY = 86400;
const setPolicy = (patch: Record<string, unknown>) =>
  h.service.ctx.setPolicy({ ...h.service.ctx.policy(), ...patch });

describe("POST /pickup/resolve", () => {
  it("answers the recipient view and sets a 10-minute pickup cookie", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 3, "b.bin": 5 }, { days: 2, downloads: 4 });
    const jar = new CookieJar();
    const r = await resolve(h, jar, p.code);
    expect(r.status).toBe(200);
    const now = h.service.ctx.now();
    expect(r.json).toEqual({
      id: p.id,
      files: [
        { id: p.files[0].id, name: "a.txt", size: 3 },
        { id: p.files[1].id, name: "b.bin", size: 5 },
      ],
      expires_at: now + 2 * DAY,
      downloads_left: 4,
    });
    const cookie = r.headers["set-cookie"] ?? [];
    expect(cookie).toHaveLength(1);
    expect(cookie[0]).toMatch(/^pt_pickup=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Strict/);
    expect(cookie[0]).not.toContain("Secure");
    // Stateless: the value names the parcel, never the code.
    expect(cookie[0]).not.toContain(p.code.replace("-", ""));
    const audit = auditRows(h, "pickup.resolve");
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ target: `parcel:${p.id}`, source: "anonymous@127.0.0.1" });
    // Resolving consumes nothing.
    expect(parcelRow(h, p.id).downloads_left).toBe(4);
  });

  it("accepts any case, spaces and dashes, and reads I and L as 1 and O as 0", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 1 });
    // A known code with the ambiguous digits (only its keyed hash is ever stored).
    storeCodeHash(h.db, p.id, codeHash(h.service.ctx, "1A0B1C"));
    for (const input of ["1A0B1C", "1a0-b1c", " ia o-b lc ", "LAOBIC", "1-A-0-B-1-C"]) {
      const r = await resolve(h, new CookieJar(), input);
      expect(r.status, input).toBe(200);
      expect(r.json.id).toBe(p.id);
    }
    for (const input of ["1A0B1", "1A0B1CX", "1A0B1U", "1A0B1C!"]) {
      expect((await resolve(h, new CookieJar(), input)).status, input).toBe(404);
    }
  });

  it("answers 400 for a malformed body", async () => {
    h = await startPickup();
    const bad = [{}, { code: 5 }, { code: "" }, { code: "ABC123", password: 7 }, "[1]"];
    for (const body of bad) {
      const r = await h.request("POST", "/pickup/resolve", { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(typeof r.json.error).toBe("string");
    }
    const notJson = await h.request("POST", "/pickup/resolve", {
      raw: Buffer.from("{code"),
      headers: { "content-type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    // Malformed requests are not pickup failures.
    expect(countRows(h.db, "failures")).toBe(0);
  });

  it("answers 404 for an unknown code and records the denial", async () => {
    h = await startPickup();
    const r = await resolve(h, new CookieJar(), "ZZZ-ZZZ");
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: "No parcel has this code", code: "pickup.code_unknown" });
    expect(auditRows(h, "pickup.deny")).toMatchObject([{ target: "system" }]);
  });

  it("answers 410 for expired, exhausted and revoked parcels", async () => {
    h = await startPickup();
    const expired = await shareParcel(h, { "a.txt": 1 }, { days: 1 });
    const revoked = await shareParcel(h, { "b.txt": 1 });
    const exhausted = await shareParcel(h, { "c.txt": 1 }, { downloads: 1 });
    const r0 = await h.request("POST", `/parcels/${revoked.id}/revoke`, {
      headers: bearer(revoked.manage_token),
    });
    expect(r0.status).toBe(200);
    const jar = await recipient(h, exhausted.code);
    const d = await h.request("GET", `/pickup/files/${exhausted.files[0].id}/download`, { jar });
    expect(d.status).toBe(200);
    expect(parcelRow(h, exhausted.id).state).toBe("exhausted");
    h.clock.advance(DAY * 1000);
    for (const p of [expired, revoked, exhausted]) {
      const r = await resolve(h, new CookieJar(), p.code);
      expect(r.status, p.files[0].name).toBe(410);
      expect(r.headers["set-cookie"]).toBeUndefined();
    }
    expect(parcelRow(h, expired.id).state).toBe("expired");
  });

  it("asks for a missing password (401, not counted) and refuses a wrong one", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 2 }, { password: "s3cret" });
    const jar = new CookieJar();
    for (const pw of [undefined, ""]) {
      const r = await resolve(h, jar, p.code, pw);
      expect(r.status).toBe(401);
      expect(r.json).toEqual({
        error: expect.any(String),
        code: "pickup.password_required",
        password_required: true,
      });
    }
    expect(parcelRow(h, p.id).wrong_passwords).toBe(0);
    const wrong = await resolve(h, jar, p.code, "guess");
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({
      error: "Wrong password",
      code: "pickup.password_wrong",
      params: { attempts_left: 4 },
      password_required: true,
      attempts_left: 4,
    });
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    expect(parcelRow(h, p.id).wrong_passwords).toBe(1);
    expect(countRows(h.db, "failures")).toBe(1);
    const ok = await resolve(h, jar, p.code, "s3cret");
    expect(ok.status).toBe(200);
    expect(ok.json.id).toBe(p.id);
    // Success resets nothing.
    expect(parcelRow(h, p.id).wrong_passwords).toBe(1);
    expect(countRows(h.db, "failures")).toBe(1);
  });

  it("locks the parcel on the attempt that reaches password_attempts; reissue restores it", async () => {
    h = await startPickup();
    setPolicy({ password_attempts: 3 });
    const p = await shareParcel(h, { "a.txt": 2 }, { password: "s3cret", downloads: 2 });
    const jar = new CookieJar();
    const holder = await recipient(h, p.code, "s3cret");
    for (let i = 1; i <= 3; i++) {
      const r = await resolve(h, jar, p.code, `wrong-${i}`);
      expect(r.status, `attempt ${i}`).toBe(401);
      expect(r.json.password_required).toBe(true);
      expect(parcelRow(h, p.id).state).toBe(i < 3 ? "published" : "review");
    }
    expect(auditRows(h, "parcel.lock")).toMatchObject([{ target: `parcel:${p.id}` }]);
    // From now on every resolve answers 423, the right password too; cookies see 423 as well.
    for (const pw of ["s3cret", "wrong", undefined]) {
      expect((await resolve(h, jar, p.code, pw)).status).toBe(423);
    }
    expect((await h.request("GET", "/pickup", { jar: holder })).status).toBe(423);
    const file = `/pickup/files/${p.files[0].id}/download`;
    expect((await h.request("GET", file, { jar: holder })).status).toBe(423);
    expect(parcelRow(h, p.id).downloads_left).toBe(2);

    h.clock.advance(3600_000);
    const admin = await adminJar(h);
    const re = await h.request("POST", `/admin/parcels/${p.id}/reissue`, { jar: admin });
    expect(re.status).toBe(200);
    const now = h.service.ctx.now();
    expect(re.json).toMatchObject({
      state: "published",
      expires_at: now + 7 * DAY,
      downloads_left: 10,
      has_password: true,
    });
    expect(parcelRow(h, p.id).wrong_passwords).toBe(0);
    // The old code and the cookie issued for it are gone; the new code needs the same password.
    expect((await resolve(h, new CookieJar(), p.code, "s3cret")).status).toBe(404);
    expect((await h.request("GET", "/pickup", { jar: holder })).status).toBe(401);
    expect((await resolve(h, new CookieJar(), re.json.code)).status).toBe(401);
    const again = await resolve(h, new CookieJar(), re.json.code, "s3cret");
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ id: p.id, downloads_left: 10, expires_at: now + 7 * DAY });
  });

  it("limits failures per client over 10 minutes, across a restart, against the current policy", async () => {
    h = await startPickup();
    setPolicy({ pickup_failures_per_ip: 3 });
    const p = await shareParcel(h, { "a.txt": 1 }, { password: "pw" });
    // A missing password is the normal first step and never counts.
    for (let i = 0; i < 5; i++)
      expect((await resolve(h, new CookieJar(), p.code)).status).toBe(401);
    expect((await resolve(h, new CookieJar(), "AAA-AAA")).status).toBe(404);
    expect((await resolve(h, new CookieJar(), p.code, "nope")).status).toBe(401);
    h.clock.advance(100_000);
    expect((await resolve(h, new CookieJar(), "BBB-BBB")).status).toBe(404);
    const blocked = await resolve(h, new CookieJar(), p.code, "pw");
    expect(blocked.status).toBe(429);
    expect(blocked.headers["retry-after"]).toBe("500");
    expect(blocked.json).toEqual({ error: expect.any(String), code: "pickup.too_many" });
    // Another client address is not affected.
    const other = await requestFrom(h, "127.0.0.2", "POST", "/pickup/resolve", {
      code: p.code,
      password: "pw",
    });
    expect(other.status).toBe(200);

    // The counters survive a restart.
    h = await h.restart();
    expect((await resolve(h, new CookieJar(), p.code, "pw")).status).toBe(429);
    // The limit is compared with the current policy.
    setPolicy({ pickup_failures_per_ip: 4 });
    expect((await resolve(h, new CookieJar(), p.code, "pw")).status).toBe(200);
    expect((await resolve(h, new CookieJar(), "CCC-CCC")).status).toBe(404);
    const again = await resolve(h, new CookieJar(), p.code, "pw");
    expect(again.status).toBe(429);
    // The two oldest failures leave the window 600 s after they happened.
    expect(again.headers["retry-after"]).toBe("500");
    h.clock.advance(500_000);
    expect((await resolve(h, new CookieJar(), p.code, "pw")).status).toBe(200);
  });
});

describe("POST /pickup/resolve under parallel guesses", () => {
  it("lets no more wrong passwords through than the client limit, and locks the parcel once", async () => {
    h = await startPickup();
    setPolicy({ pickup_failures_per_ip: 4, password_attempts: 3 });
    const p = await shareParcel(h, { "a.txt": 1 }, { password: "s3cret" });
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) => resolve(h, new CookieJar(), p.code, `guess-${i}`)),
    );
    const statuses = replies.map((r) => r.status).sort();
    // Every guess that got past the limit was checked (401), the rest were turned away first.
    expect(statuses).toEqual([...Array(4).fill(401), ...Array(8).fill(429)]);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "review", wrong_passwords: 4 });
    expect(auditRows(h, "parcel.lock")).toHaveLength(1);
  });
});

describe("GET /pickup", () => {
  it("answers the parcel for a valid cookie and 401 without one or with a forged one", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 3 }, { downloads: 3 });
    const jar = await recipient(h, p.code);
    const r = await h.request("GET", "/pickup", { jar });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      id: p.id,
      files: [{ id: p.files[0].id, name: "a.txt", size: 3 }],
      expires_at: p.publish.json.expires_at,
      downloads_left: 3,
    });
    expect((await h.request("GET", "/pickup", { jar: new CookieJar() })).status).toBe(401);
    const value = jar.cookies.get("pt_pickup") ?? "";
    const [id, gen, exp, mac] = decodeURIComponent(value).split(".");
    const forged = [
      "garbage",
      `${id}.${gen}.${Number(exp) + 3600}.${mac}`,
      `${id}.${Number(gen) + 1}.${exp}.${mac}`,
      `${id}.${gen}.${exp}.${mac.slice(0, -2)}AA`,
    ];
    for (const v of forged) {
      const fake = new CookieJar();
      fake.cookies.set("pt_pickup", encodeURIComponent(v));
      const f = await h.request("GET", "/pickup", { jar: fake });
      expect(f.status, v).toBe(401);
      expect(f.json).toEqual({ error: expect.any(String), code: "pickup.code_first" });
    }
  });

  it("stops accepting the cookie after 10 minutes", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 1 });
    const jar = await recipient(h, p.code);
    h.clock.advance(599_000);
    expect((await h.request("GET", "/pickup", { jar })).status).toBe(200);
    h.clock.advance(1_000);
    expect((await h.request("GET", "/pickup", { jar })).status).toBe(401);
    const d = await h.request("GET", `/pickup/files/${p.files[0].id}/download`, { jar });
    expect(d.status).toBe(401);
    expect(parcelRow(h, p.id).downloads_left).toBe(10);
    // Entering the code again gives a fresh 10 minutes.
    const again = await recipient(h, p.code);
    expect((await h.request("GET", "/pickup", { jar: again })).status).toBe(200);
  });

  it("stops accepting the old code and its cookies at once when a new code is issued", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 1 });
    const jar = await recipient(h, p.code);
    const code = await h.request("POST", `/parcels/${p.id}/code`, {
      headers: bearer(p.manage_token),
    });
    expect(code.status).toBe(200);
    expect((await h.request("GET", "/pickup", { jar })).status).toBe(401);
    const d = await h.request("GET", `/pickup/files/${p.files[0].id}/download`, { jar });
    expect(d.status).toBe(401);
    expect(parcelRow(h, p.id).downloads_left).toBe(10);
    expect((await resolve(h, new CookieJar(), p.code)).status).toBe(404);
    const fresh = await recipient(h, code.json.code);
    expect((await h.request("GET", "/pickup", { jar: fresh })).status).toBe(200);
  });

  it("answers 410 once the parcel ended and 404 once its record is cleaned", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 1 }, { days: 1 });
    const jar = await recipient(h, p.code);
    const rv = await h.request("POST", `/parcels/${p.id}/revoke`, {
      headers: bearer(p.manage_token),
    });
    expect(rv.status).toBe(200);
    expect((await h.request("GET", "/pickup", { jar })).status).toBe(410);
    const admin = await adminJar(h);
    expect((await h.request("POST", "/admin/cleanup", { jar: admin })).status).toBe(200);
    expect((await h.request("GET", "/pickup", { jar })).status).toBe(404);
  });

  it("names the cookie pt_pickup_http over HTTP and keeps Secure pt_pickup over HTTPS when both exist", async () => {
    h = await startPickup({ entries: ["http://127.0.0.1:PORT", "https://gw.example"] });
    const p = await shareParcel(h, { "a.txt": 1 });
    const plain = new CookieJar();
    const r1 = await resolve(h, plain, p.code);
    expect(r1.headers["set-cookie"]?.[0]).toMatch(/^pt_pickup_http=.*HttpOnly; SameSite=Strict/);
    expect(r1.headers["set-cookie"]?.[0]).not.toContain("Secure");
    expect((await h.request("GET", "/pickup", { jar: plain })).status).toBe(200);

    const tls = new CookieJar();
    const https = { origin: "https://gw.example", "x-service-origin": "https://gw.example" };
    const r2 = await h.request("POST", "/pickup/resolve", {
      jar: tls,
      body: { code: p.code },
      headers: https,
    });
    expect(r2.status).toBe(200);
    expect(r2.headers["set-cookie"]?.[0]).toMatch(/^pt_pickup=.*; Secure$/);
    const view = await h.request("GET", "/pickup", {
      jar: tls,
      headers: { "x-service-origin": "https://gw.example" },
    });
    expect(view.status).toBe(200);
    // Each entry reads only its own cookie name.
    expect((await h.request("GET", "/pickup", { jar: tls })).status).toBe(401);
  });
});
