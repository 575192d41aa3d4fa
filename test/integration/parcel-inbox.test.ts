import { afterEach, describe, expect, it } from "vitest";
import { PICKUP_SERVICE_BUDGET } from "../../server/parcel/domain/pickup.js";
import type { ParcelEvent } from "../../server/parcel/events.js";
import { CookieJar, startParcel, type Harness, type Reply } from "../helpers/parcel-harness.js";
import { bearer } from "../helpers/parcel-uploads.js";

/**
 * The inbox, line by line as the API promises it: the administrator opens it (or reopens it
 * with a new code) and closes it; a device opens it by its code (and password) and gets the
 * `inbox_session` cookie; uploads marked `"inbox": true` need that cookie, are admitted like
 * any upload, and are delivered without a code; the administrator sees each delivery with its
 * sender, time and pickup code, which works on the ordinary pickup routes.
 */

let h: Harness;
const events: ParcelEvent[] = [];
afterEach(async () => {
  events.length = 0;
  await h?.close(true);
});

async function start(opts: Parameters<typeof startParcel>[0] = {}): Promise<Harness> {
  h = await startParcel({ onEvent: (e) => events.push(e), computerName: "study-pc", ...opts });
  const login = await h.request("POST", "/admin/login", {
    body: { username: "admin", password: "admin-password-1" },
  });
  expect(login.status).toBe(200);
  return h;
}

const open = (body: Record<string, unknown> = {}) => h.request("POST", "/admin/inbox", { body });
const plain = (code: string) => code.replace(/-/g, "");

function resolveInbox(jar: CookieJar, code: string, password?: string): Promise<Reply> {
  return h.request("POST", "/inbox/resolve", {
    jar,
    body: password === undefined ? { code } : { code, password },
  });
}

function sendToInbox(jar: CookieJar, files: Record<string, number>, extra = {}): Promise<Reply> {
  return h.request("POST", "/uploads", {
    jar,
    body: {
      files: Object.entries(files).map(([name, size]) => ({ name, size })),
      inbox: true,
      ...extra,
    },
  });
}

/** A device opens the inbox and delivers `files` (name -> bytes); answers the publish reply. */
async function deliver(code: string, files: Record<string, Buffer>, password?: string) {
  const jar = new CookieJar();
  expect((await resolveInbox(jar, code, password)).status).toBe(200);
  const sizes = Object.fromEntries(Object.entries(files).map(([n, b]) => [n, b.length]));
  const created = await sendToInbox(jar, sizes);
  expect(created.status, created.text).toBe(201);
  const auth = bearer(created.json.manage_token as string);
  for (const f of created.json.files as Array<{ id: string; name: string }>) {
    const put = await h.request("PUT", `/uploads/${created.json.id}/files/${f.id}`, {
      jar,
      raw: files[f.name],
      headers: auth,
    });
    expect(put.status, put.text).toBe(200);
  }
  const published = await h.request("POST", `/uploads/${created.json.id}/publish`, {
    jar,
    headers: auth,
  });
  return { jar, created, published, auth };
}

const auditActions = async (action: string) =>
  (await h.request("GET", `/admin/audit?action=${action}&page_size=100`)).json.items as Array<{
    action: string;
    source: string;
    target: string;
    detail: Record<string, unknown>;
  }>;

describe("opening and closing the inbox", () => {
  it("opens with a code of the policy's length, links on every entry, and the time it closes", async () => {
    await start();
    const r = await open();
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(
      ["closes_at", "code", "has_password", "open", "url", "urls"].sort(),
    );
    expect(r.json.open).toBe(true);
    expect(r.json.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}$/);
    expect(r.json.url).toBe(`${h.origin}/#/inbox/${plain(r.json.code)}`);
    expect(r.json.urls.map((u: { url: string }) => u.url)).toEqual([
      `http://127.0.0.1:${h.port}/#/inbox/${plain(r.json.code)}`,
      `http://localhost:${h.port}/#/inbox/${plain(r.json.code)}`,
    ]);
    // Default: one hour.
    expect(r.json.closes_at).toBe(h.service.ctx.now() + 3600);
    expect(r.json.has_password).toBe(false);
    const view = await h.request("GET", "/admin/inbox");
    expect(view.json).toEqual({ ...r.json, items: [] });

    h.service.ctx.setPolicy({ ...h.service.ctx.policy(), code_length: 12 });
    const longer = await open({ minutes: 10080, password: "pw" });
    expect(plain(longer.json.code)).toHaveLength(12);
    expect(longer.json.closes_at).toBe(h.service.ctx.now() + 10080 * 60);
    expect(longer.json.has_password).toBe(true);
  });

  it("refuses minutes outside 1..10080 and a session without the administrator", async () => {
    await start();
    for (const minutes of [0, 10081, 1.5, "60", -1])
      expect((await open({ minutes })).status, String(minutes)).toBe(400);
    expect((await open({ password: 5 })).status).toBe(400);
    const stranger = new CookieJar();
    for (const method of ["POST", "GET", "DELETE"])
      expect((await h.request(method, "/admin/inbox", { jar: stranger })).status).toBe(401);
  });

  it("reopening gives a new code: the old code and its sessions stop at once", async () => {
    await start();
    const first = (await open()).json;
    const jar = new CookieJar();
    expect((await resolveInbox(jar, first.code)).status).toBe(200);
    const second = (await open()).json;
    expect(second.code).not.toBe(first.code);
    expect((await resolveInbox(new CookieJar(), first.code)).status).toBe(404);
    expect((await sendToInbox(jar, { "a.txt": 1 })).status).toBe(403);
    expect((await resolveInbox(new CookieJar(), second.code)).status).toBe(200);
  });

  it("closing stops the code and every session at once; closing again changes nothing", async () => {
    await start();
    const { code } = (await open()).json;
    const jar = new CookieJar();
    expect((await resolveInbox(jar, code)).status).toBe(200);
    const closed = await h.request("DELETE", "/admin/inbox");
    expect(closed.status).toBe(200);
    expect(closed.json).toEqual({ open: false });
    expect((await resolveInbox(new CookieJar(), code)).status).toBe(404);
    const refused = await sendToInbox(jar, { "a.txt": 1 });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("inbox.session_required");
    expect((await h.request("GET", "/admin/inbox")).json).toEqual({
      open: false,
      code: null,
      url: null,
      urls: null,
      closes_at: null,
      has_password: null,
      items: [],
    });
    expect((await h.request("DELETE", "/admin/inbox")).json).toEqual({ open: false });
    expect((await auditActions("inbox.close")).length).toBe(1);
  });

  it("closes by itself when its time runs out", async () => {
    await start();
    const { code } = (await open({ minutes: 5 })).json;
    h.clock.advance(5 * 60 * 1000 - 1000);
    const jar = new CookieJar();
    expect((await resolveInbox(jar, code)).status).toBe(200);
    h.clock.advance(1000);
    expect((await resolveInbox(new CookieJar(), code)).status).toBe(404);
    expect((await sendToInbox(jar, { "a.txt": 1 })).status).toBe(403);
    expect((await h.request("GET", "/admin/inbox")).json.open).toBe(false);
    const [record] = await auditActions("inbox.close");
    expect(record.detail).toEqual({ reason: "time" });
  });

  it("survives a restart: the same code, password and closing time; sessions hold", async () => {
    await start();
    const opened = (await open({ minutes: 90, password: "kitchen" })).json;
    const jar = new CookieJar();
    expect((await resolveInbox(jar, opened.code, "kitchen")).status).toBe(200);
    h = await h.restart();
    await h.request("POST", "/admin/login", {
      body: { username: "admin", password: "admin-password-1" },
    });
    const view = (await h.request("GET", "/admin/inbox")).json;
    expect(view).toMatchObject({ open: true, code: opened.code, closes_at: opened.closes_at });
    expect(view.has_password).toBe(true);
    expect((await resolveInbox(new CookieJar(), opened.code)).status).toBe(403);
    expect((await sendToInbox(jar, { "a.txt": 1 })).status).toBe(201);
    // The database keeps the code only as a keyed hash and sealed, the password hashed.
    const row = h.repos.inbox.get();
    expect(JSON.stringify(row)).not.toContain(plain(opened.code));
    expect(JSON.stringify(row)).not.toContain("kitchen");
    expect(row.password_hash).toMatch(/^scrypt/);
  });
});

describe("a device opens the inbox", () => {
  it("answers the computer's name and limits, with an HttpOnly, SameSite=Strict 10-minute cookie", async () => {
    await start();
    const { code } = (await open({ minutes: 3 })).json;
    const r = await resolveInbox(new CookieJar(), code.toLowerCase().replace("-", " "));
    expect(r.status).toBe(200);
    const policy = h.service.ctx.policy();
    expect(r.json).toEqual({
      name: "study-pc",
      closes_at: h.service.ctx.now() + 180,
      max_files: policy.max_files,
      max_file_bytes: policy.max_file_bytes,
      max_parcel_bytes: policy.max_parcel_bytes,
    });
    const cookie = (r.headers["set-cookie"] ?? []).find((c) => c.startsWith("inbox_session="));
    expect(cookie).toBeDefined();
    const attrs = (cookie ?? "").split(";").map((a) => a.trim());
    expect(attrs).toEqual(expect.arrayContaining(["Max-Age=600", "Path=/", "HttpOnly"]));
    expect(attrs).toContain("SameSite=Strict");
    expect(attrs).not.toContain("Secure");
    const [record] = await auditActions("inbox.resolve");
    expect(record.source).toBe("anonymous@127.0.0.1");
  });

  it("names the cookie inbox_session_http over HTTP when HTTPS entries exist too", async () => {
    await start({ entries: ["http://127.0.0.1:PORT", "https://127.0.0.1:9443"] });
    const { code } = (await open()).json;
    const jar = new CookieJar();
    const r = await resolveInbox(jar, code);
    expect(r.status).toBe(200);
    expect(jar.cookies.has("inbox_session_http")).toBe(true);
    expect(jar.cookies.has("inbox_session")).toBe(false);
    expect((await sendToInbox(jar, { "a.txt": 1 })).status).toBe(201);
    // The same value under the HTTPS name is not this request's cookie.
    const wrongName = new CookieJar();
    wrongName.cookies.set("inbox_session", jar.cookies.get("inbox_session_http") ?? "");
    expect((await sendToInbox(wrongName, { "a.txt": 1 })).status).toBe(403);
  });

  it("asks for the password without counting it, refuses a wrong one with 403 and counts it", async () => {
    await start();
    h.service.ctx.setPolicy({ ...h.service.ctx.policy(), pickup_failures_per_ip: 3 });
    const { code } = (await open({ password: "tulip" })).json;
    for (let i = 0; i < 5; i++) {
      const ask = await resolveInbox(new CookieJar(), code);
      expect(ask.status).toBe(403);
      expect(ask.json).toMatchObject({ code: "inbox.password_required", password_required: true });
    }
    const wrong = await resolveInbox(new CookieJar(), code, "rose");
    expect(wrong.status).toBe(403);
    expect(wrong.json).toMatchObject({ code: "inbox.password_wrong", password_required: true });
    const right = new CookieJar();
    expect((await resolveInbox(right, code, "tulip")).status).toBe(200);
    expect((await sendToInbox(right, { "a.txt": 1 })).status).toBe(201);
    expect((await resolveInbox(new CookieJar(), code, "daisy")).status).toBe(403);
    // Two wrong passwords and one unknown code: the third failure reaches the limit of 3.
    expect((await resolveInbox(new CookieJar(), "ZZZ-ZZZ")).status).toBe(404);
    const blocked = await resolveInbox(new CookieJar(), code, "tulip");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    // The same budget as pickups: the pickup page is blocked too.
    expect((await h.request("POST", "/pickup/resolve", { body: { code: "ABC-DEF" } })).status).toBe(
      429,
    );
    const denies = await auditActions("inbox.deny");
    expect(denies.map((d) => d.detail.reason).sort()).toEqual([
      "unknown_code",
      "wrong_password",
      "wrong_password",
    ]);
  });

  it("counts unknown codes in the service-wide budget; a device holding a session is not locked out", async () => {
    await start();
    h.service.ctx.setPolicy({ ...h.service.ctx.policy(), pickup_failures_per_ip: 100_000 });
    const { code } = (await open()).json;
    const holder = new CookieJar();
    expect((await resolveInbox(holder, code)).status).toBe(200);
    const now = h.service.ctx.now();
    for (let i = 0; i < PICKUP_SERVICE_BUDGET - 1; i++)
      h.repos.pickup.addFailure(`10.0.${i >> 8}.${i & 255}`, now);
    expect((await resolveInbox(new CookieJar(), "ZZZ-ZZZ")).status).toBe(404);
    const busy = await resolveInbox(new CookieJar(), code);
    expect(busy.status).toBe(429);
    expect(busy.json.code).toBe("pickup.service_busy");
    expect((await resolveInbox(holder, code)).status).toBe(200);
  });
});

describe("sending to the inbox", () => {
  it("needs the inbox session (403 without it) before anything else is said", async () => {
    await start();
    await open();
    const none = await sendToInbox(new CookieJar(), { "a.txt": 1 });
    expect(none.status).toBe(403);
    expect(none.json.code).toBe("inbox.session_required");
    const forged = new CookieJar();
    forged.cookies.set(
      "inbox_session",
      "1.99999999999.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    );
    expect((await sendToInbox(forged, { "a.txt": 1 })).status).toBe(403);
    // No session and a bad manifest: still 403, the manifest is not judged.
    expect((await sendToInbox(new CookieJar(), { "": 1 })).status).toBe(403);
  });

  it("delivers without a code: the sender gets no code, url or urls, ever", async () => {
    await start();
    const { code } = (await open()).json;
    const photo = Buffer.from("a photo's bytes");
    const { created, published, auth, jar } = await deliver(code, { "photo.jpg": photo });
    expect(published.status).toBe(200);
    expect(published.json.delivered).toBe(true);
    for (const key of ["code", "url", "urls"]) expect(published.json).not.toHaveProperty(key);
    expect(published.json.state).toBe("published");
    const id = created.json.id as string;
    const again = await h.request("POST", `/uploads/${id}/publish`, { jar, headers: auth });
    expect(again.json).toMatchObject({ delivered: true });
    expect(again.json).not.toHaveProperty("code");
    expect((await h.request("GET", `/parcels/${id}/code`, { jar, headers: auth })).status).toBe(
      404,
    );
    const renew = await h.request("POST", `/parcels/${id}/code`, { jar, headers: auth });
    expect(renew.status).toBe(409);
    expect(renew.json.code).toBe("parcel.inbox_code");
    // Not the sender's parcel to list.
    await h.request("GET", "/policy", { jar });
    expect((await h.request("GET", "/mine", { jar })).json.items).toEqual([]);
    expect(events.map((e) => e.kind)).toEqual(["inbox.delivered"]);
    expect(events[0]).toMatchObject({ parcelId: id, files: ["photo.jpg"], from: "127.0.0.1" });
  });

  it("lists each delivery for the administrator with from, received_at and a code that picks it up", async () => {
    await start();
    const { code } = (await open()).json;
    const a = Buffer.from("first delivery");
    const b = Buffer.from("second, two files");
    const first = await deliver(code, { "a.txt": a });
    h.clock.advance(5000);
    const second = await deliver(code, { "b.txt": b, "c.txt": Buffer.from("c") });
    const view = await h.request("GET", "/admin/inbox");
    const items = view.json.items as Array<Record<string, unknown> & { code: string }>;
    expect(items.map((i) => i.id)).toEqual([second.created.json.id, first.created.json.id]);
    const policy = h.service.ctx.policy();
    const [newest] = items;
    expect(newest).toMatchObject({
      from: "127.0.0.1",
      received_at: second.published.json.sent_at,
      owner: "token",
      bytes: b.length + 1,
      downloads_allowed: policy.default_downloads,
      expires_at: (second.published.json.sent_at as number) + policy.default_days * 86400,
      has_password: false,
    });
    expect(newest.code).toMatch(/^[0-9A-Z]{3}-[0-9A-Z]{3}$/);
    expect(newest.code).not.toBe(code);
    // The operator's devices fetch it through the ordinary pickup routes.
    const pick = new CookieJar();
    const resolved = await h.request("POST", "/pickup/resolve", {
      jar: pick,
      body: { code: newest.code },
    });
    expect(resolved.status).toBe(200);
    const file = (resolved.json.files as Array<{ id: string; name: string }>).find(
      (f) => f.name === "b.txt",
    );
    const body = await h.request("GET", `/pickup/files/${file?.id}/download`, { jar: pick });
    expect(body.body.equals(b)).toBe(true);
    // Items stay after the inbox closes, until they expire or are deleted.
    await h.request("DELETE", "/admin/inbox");
    expect((await h.request("GET", "/admin/inbox")).json.items).toHaveLength(2);
    await h.request("POST", `/admin/parcels/${first.created.json.id}/delete`);
    expect((await h.request("GET", "/admin/inbox")).json.items).toHaveLength(1);
    // (The download renewed its expiry; the cap is 30 days after sending.)
    h.clock.advance((policy.renew_cap_days + 1) * 86400 * 1000);
    // (The administrator's session lasts 8 hours: signed in again.)
    await h.request("POST", "/admin/login", {
      body: { username: "admin", password: "admin-password-1" },
    });
    expect((await h.request("GET", "/admin/inbox")).json.items).toEqual([]);
  });

  it("records the inbox in the audit log: open, resolve, deny, close and publish with detail inbox", async () => {
    await start();
    const { code } = (await open({ minutes: 15 })).json;
    await resolveInbox(new CookieJar(), "ZZZ-ZZZ");
    const { created } = await deliver(code, { "x.txt": Buffer.from("x") });
    await h.request("DELETE", "/admin/inbox");
    const [opened] = await auditActions("inbox.open");
    expect(opened.source).toBe("admin:admin@127.0.0.1");
    expect(opened.detail).toMatchObject({ minutes: 15, has_password: false });
    expect((await auditActions("inbox.resolve")).length).toBe(1);
    expect((await auditActions("inbox.deny"))[0].detail).toEqual({ reason: "unknown_code" });
    expect((await auditActions("inbox.close"))[0].detail).toEqual({ reason: "closed" });
    const [publish] = await auditActions("parcel.publish");
    expect(publish.target).toBe(`parcel:${created.json.id}`);
    expect(publish.detail).toEqual({ inbox: true });
    const [create] = await auditActions("upload.create");
    expect(create.detail).toMatchObject({ inbox: true, files: 1 });
  });

  it("is admitted like any upload: policy limits, terms, daily allowance, budgets", async () => {
    await start();
    const { code } = (await open()).json;
    const jar = new CookieJar();
    await resolveInbox(jar, code);
    const ctx = h.service.ctx;
    ctx.setPolicy({ ...ctx.policy(), max_file_bytes: 10, require_password: true });
    expect((await sendToInbox(jar, { "big.bin": 11 })).status).toBe(413);
    const terms = await sendToInbox(jar, { "a.txt": 1 }, { days: 2 });
    expect(terms.status).toBe(400);
    expect(terms.json.code).toBe("upload.inbox_terms");
    // The policy's password rule is the sender's to follow when sharing, not here.
    expect((await sendToInbox(jar, { "a.txt": 1 })).status).toBe(201);
    ctx.setRuntime({ ...ctx.runtime(), file_budget: 1 });
    expect((await sendToInbox(jar, { "a.txt": 1 })).status).toBe(507);
    ctx.setRuntime({ ...ctx.runtime(), file_budget: 10_000 });
    ctx.setPolicy({ ...ctx.policy(), daily_upload_bytes: 5 });
    const daily = await sendToInbox(jar, { "a.txt": 6 });
    expect(daily.status).toBe(429);
    expect(daily.json.code).toBe("upload.daily_limit");
  });

  it("resumes like any upload: HEAD says what is stored, PATCH goes on from there", async () => {
    await start();
    const { code } = (await open()).json;
    const jar = new CookieJar();
    await resolveInbox(jar, code);
    const data = Buffer.from("0123456789abcdef");
    const created = await sendToInbox(jar, { "v.mp4": data.length });
    const url = `/uploads/${created.json.id}/files/${created.json.files[0].id}`;
    const auth = { ...bearer(created.json.manage_token), "tus-resumable": "1.0.0" };
    const part = await h.request("PATCH", url, {
      raw: data.subarray(0, 6),
      headers: {
        ...auth,
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
      },
    });
    expect(part.status).toBe(204);
    const head = await h.request("HEAD", url, { headers: auth });
    expect(head.headers["upload-offset"]).toBe("6");
    const rest = await h.request("PATCH", url, {
      raw: data.subarray(6),
      headers: {
        ...auth,
        "upload-offset": "6",
        "content-type": "application/offset+octet-stream",
      },
    });
    expect(rest.status).toBe(204);
    const done = await h.request("POST", `/uploads/${created.json.id}/publish`, {
      headers: bearer(created.json.manage_token),
    });
    expect(done.json.delivered).toBe(true);
  });
});
