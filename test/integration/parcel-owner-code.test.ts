import { afterEach, describe, expect, it } from "vitest";
import { openCode, sealCode } from "../../server/parcel/domain/code-box.js";
import { CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { bearer, createUpload, uploadAndPublish, type Created } from "../helpers/parcel-uploads.js";
import { allParcelRows } from "../helpers/raw-db.js";

let h: Harness;
afterEach(async () => h?.close(true));

/** A browser: its visitor cookie owns what it sends. */
async function browser(): Promise<CookieJar> {
  const jar = new CookieJar();
  expect((await h.request("GET", "/policy", { jar })).status).toBe(200);
  return jar;
}

/** Sent from `jar` and published with its token (as the send page does); answers the code. */
async function sent(jar: CookieJar, password?: string): Promise<{ up: Created; code: string }> {
  const r = await h.request("POST", "/uploads", {
    jar,
    body: { files: [{ name: "a.txt", size: 3 }], ...(password ? { password } : {}) },
  });
  expect(r.status).toBe(201);
  const up = r.json as Created;
  const put = await h.request("PUT", `/uploads/${up.id}/files/${up.files[0].id}`, {
    jar,
    raw: Buffer.from("abc"),
    headers: bearer(up.manage_token),
  });
  expect(put.status).toBe(200);
  const pub = await h.request("POST", `/uploads/${up.id}/publish`, {
    jar,
    headers: bearer(up.manage_token),
  });
  expect(pub.status).toBe(200);
  return { up, code: pub.json.code as string };
}

const show = (id: string, opts: { token?: string; jar?: CookieJar }) =>
  h.request("GET", `/parcels/${id}/code`, {
    jar: opts.jar ?? new CookieJar(),
    headers: opts.token ? bearer(opts.token) : {},
  });

describe("GET /parcels/:id/code", () => {
  it("shows the owner holding the token the current code, with its links; never to anyone else", async () => {
    h = await startParcel();
    const jar = await browser();
    const { up, code } = await sent(jar);
    const r = await show(up.id, { token: up.manage_token, jar });
    expect(r.status).toBe(200);
    const plain = code.replace("-", "");
    expect(r.json).toMatchObject({
      code,
      url: `${h.origin}/#/pickup/${plain}`,
      downloads_left: 10,
    });
    expect(r.headers["cache-control"]).toBe("no-store");
    // The visitor cookie alone owns the parcel but holds no key to its code.
    const cookie = await show(up.id, { jar });
    expect(cookie.status).toBe(403);
    expect(cookie.json.code).toBe("owner.token_needed");
    expect((await show(up.id, {})).status).toBe(401);
    const other = await createUpload(h, { "b.txt": 1 });
    const foreign = await show(up.id, { token: other.manage_token });
    expect(foreign.status).toBe(403);
    expect(foreign.json.code).toBe("owner.token_other");
  });

  it("follows a new code asked with the token; one asked without it cannot be shown", async () => {
    h = await startParcel();
    const jar = await browser();
    const { up, code } = await sent(jar);
    const renewed = await h.request("POST", `/parcels/${up.id}/code`, {
      jar,
      headers: bearer(up.manage_token),
    });
    expect(renewed.status).toBe(200);
    expect(renewed.json.code).not.toBe(code);
    expect((await show(up.id, { token: up.manage_token })).json.code).toBe(renewed.json.code);
    // From a browser that only has the cookie: the service cannot seal it for the owner.
    const byCookie = await h.request("POST", `/parcels/${up.id}/code`, { jar });
    expect(byCookie.status).toBe(200);
    const r = await show(up.id, { token: up.manage_token });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe("parcel.code_not_kept");
    expect(JSON.stringify(r.json)).not.toContain(byCookie.json.code as string);
  });

  it("cannot show the code an administrator's reissue gave, and shows none of an ended parcel", async () => {
    h = await startParcel();
    const jar = await browser();
    const { up, code } = await sent(jar, "right one");
    const attempts = h.service.ctx.policy().password_attempts;
    for (let i = 0; i < attempts; i++) {
      const wrong = await h.request("POST", "/pickup/resolve", {
        jar: new CookieJar(),
        body: { code, password: `wrong ${i}` },
      });
      expect(wrong.status).toBe(401);
    }
    const locked = await show(up.id, { token: up.manage_token });
    expect(locked.status).toBe(409);
    expect(locked.json.code).toBe("parcel.code_ended");
    const admin = new CookieJar();
    await h.request("POST", "/admin/login", {
      jar: admin,
      body: { username: "admin", password: "admin-password-1" },
    });
    const re = await h.request("POST", `/admin/parcels/${up.id}/reissue`, { jar: admin });
    expect(re.status).toBe(200);
    const after = await show(up.id, { token: up.manage_token });
    expect(after.status).toBe(404);
    expect(after.json.code).toBe("parcel.code_not_kept");
    const revoked = await h.request("POST", `/parcels/${up.id}/revoke`, {
      headers: bearer(up.manage_token),
    });
    expect(revoked.status).toBe(200);
    expect((await show(up.id, { token: up.manage_token })).json.code).toBe("parcel.code_ended");
  });

  it("keeps no readable code in the database: a box only the token opens, and two characters", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "a.txt": 1 });
    const pub = await uploadAndPublish(h, up);
    const plain = (pub.json.code as string).replace("-", "");
    const row = h.repos.sessions.codeBox(up.id);
    if (!row?.box) throw new Error("the parcel keeps no code box");
    expect(h.repos.parcels.byId(up.id)).toMatchObject({ code_tail: plain.slice(-2) });
    const dump = JSON.stringify(allParcelRows(h.db));
    expect(dump).not.toContain(plain);
    expect(dump).not.toContain(pub.json.code as string);
    expect(dump).not.toContain(up.manage_token);
    expect(openCode(row.box, up.manage_token, up.id)).toBe(plain);
    const other = await createUpload(h, { "b.txt": 1 });
    expect(openCode(row.box, other.manage_token, up.id)).toBeNull();
    expect(openCode(row.box, up.manage_token, other.id)).toBeNull();
    expect(openCode(`${row.box}x`, up.manage_token, up.id)).toBeNull();
    expect(openCode("v1.a.b", up.manage_token, up.id)).toBeNull();
    expect(sealCode("t", "p", "CODE")).not.toBe(sealCode("t", "p", "CODE"));
  });
});

describe("audit sources of owner actions", () => {
  it("records a browser's actions as the browser, with or without its token; a script's as a token", async () => {
    h = await startParcel();
    const jar = await browser();
    const { up } = await sent(jar);
    await h.request("POST", `/parcels/${up.id}/revoke`, { jar, headers: bearer(up.manage_token) });
    const script = await createUpload(h, { "s.txt": 1 });
    await uploadAndPublish(h, script);
    const sources = ["upload.create", "parcel.publish", "parcel.revoke"].flatMap(
      (action) => h.repos.audit.page({ action }, { page: 1, pageSize: 100 }).items,
    );
    const of = (action: string, id: string) =>
      sources.find((s) => s.action === action && s.target === `parcel:${id}`)?.source ?? "";
    for (const action of ["upload.create", "parcel.publish", "parcel.revoke"])
      expect(of(action, up.id), action).toMatch(/^visitor:[0-9a-f]{8}@/);
    expect(of("upload.create", script.id)).toMatch(/^token@/);
    expect(of("parcel.publish", script.id)).toMatch(/^token@/);
  });
});
