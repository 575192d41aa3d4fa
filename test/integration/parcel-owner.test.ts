import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { auditOf, CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { bearer, createUpload, putBytes, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { codeHash } from "../../server/parcel/domain/share.js";

let h: Harness;
afterEach(async () => h?.close(true));

const CODE6 = /^[0-9A-HJKMNP-TV-Z]{3}-[0-9A-HJKMNP-TV-Z]{3}$/;
const row = (id: string) => h.repos.parcels.byId(id)!;
const auditCount = (action: string) => auditOf(h, action).length;

describe("POST /uploads/:id/publish", () => {
  it("publishes with a fresh code and share fields for every entry", async () => {
    h = await startParcel({
      entries: [
        "http://127.0.0.1:PORT",
        "http://localhost:PORT",
        "http://192.168.1.20:PORT",
        "https://gw.example",
      ],
    });
    const up = await createUpload(h, { "a.txt": 3, "b.txt": 4 }, { days: 2, downloads: 3 });
    const r = await uploadAndPublish(h, up);
    expect(r.status).toBe(200);
    const now = h.service.ctx.now();
    const code: string = r.json.code;
    expect(code).toMatch(CODE6);
    const plain = code.replace("-", "");
    const base = `http://127.0.0.1:${h.port}`;
    expect(r.json).toEqual({
      id: up.id,
      state: "published",
      files: [
        { id: up.files[0].id, name: "a.txt", size: 3, state: "ready" },
        { id: up.files[1].id, name: "b.txt", size: 4, state: "ready" },
      ],
      created_at: now,
      sent_at: now,
      expires_at: now + 2 * 86400,
      downloads_allowed: 3,
      downloads_left: 3,
      has_password: false,
      renew: true,
      code,
      url: `${base}/#/pickup/${plain}`,
      urls: [
        {
          label: "This computer",
          url: `${base}/#/pickup/${plain}`,
        },
        {
          label: "This computer (localhost)",
          url: `http://localhost:${h.port}/#/pickup/${plain}`,
        },
        {
          label: "LAN 192.168.1.20",
          url: `http://192.168.1.20:${h.port}/#/pickup/${plain}`,
        },
        {
          label: "gw.example (HTTPS)",
          url: `https://gw.example/#/pickup/${plain}`,
        },
      ],
    });
    // Only the keyed hash is stored; the plain code is nowhere in the database.
    const stored = row(up.id);
    expect(stored).toMatchObject({ reserved_bytes: 0, code_gen: 1 });
    expect(stored.code_hash).toBe(codeHash(h.service.ctx, plain));
    expect(stored.code_hash).toBe(codeHash(h.service.ctx, code.toLowerCase()));
    const dbFiles = ["parcel.db", "parcel.db-wal"]
      .map((f) => join(h.dataDir, "parcel", f))
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString("latin1"));
    for (const text of dbFiles) expect(text.includes(plain)).toBe(false);
    expect(auditCount("parcel.publish")).toBe(1);

    // A second publish answers 200 without a code, pointing at the pickup page.
    const again = await h.request("POST", `/uploads/${up.id}/publish`, {
      headers: {
        ...bearer(up.manage_token),
        origin: "https://gw.example",
        "x-service-origin": "https://gw.example",
      },
    });
    expect(again.status).toBe(200);
    expect(again.json).not.toHaveProperty("code");
    expect(again.json.url).toBe("https://gw.example/#/pickup");
    expect(again.json.urls.map((u: { url: string }) => u.url)).toEqual([
      `${base}/#/pickup`,
      `http://localhost:${h.port}/#/pickup`,
      `http://192.168.1.20:${h.port}/#/pickup`,
      "https://gw.example/#/pickup",
    ]);
    expect(row(up.id).code_gen).toBe(1);
    expect(auditCount("parcel.publish")).toBe(1);
  });

  it("answers 409 while a file is not ready, and for a session that ended unpublished", async () => {
    h = await startParcel();
    const up = await createUpload(h, { a: 1, b: 1 });
    const auth = bearer(up.manage_token);
    expect((await putBytes(h, up, 0, Buffer.from("x"))).status).toBe(200);
    const early = await h.request("POST", `/uploads/${up.id}/publish`, { headers: auth });
    expect(early.status).toBe(409);
    expect(row(up.id).state).toBe("uploading");
    await h.request("POST", `/parcels/${up.id}/revoke`, { headers: auth });
    expect((await putBytes(h, up, 1, Buffer.from("y"))).status).toBe(409);
    const late = await h.request("POST", `/uploads/${up.id}/publish`, { headers: auth });
    expect(late.status).toBe(409);
  });

  it("uses the configured code length", async () => {
    h = await startParcel();
    h.service.ctx.setPolicy({ ...h.service.ctx.policy(), code_length: 10 });
    const r = await uploadAndPublish(h, await createUpload(h, { a: 1 }));
    expect(r.json.code).toMatch(
      /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{2}$/,
    );
    expect(r.json.url).toMatch(/\/#\/pickup\/[0-9A-HJKMNP-TV-Z]{10}$/);
  });
});

describe("upload session timeout", () => {
  it("revokes an unpublished session one hour after creation and releases its reservation", async () => {
    h = await startParcel();
    const up = await createUpload(h, { a: 10 });
    const auth = bearer(up.manage_token);
    h.clock.advance(3599 * 1000);
    expect((await h.request("GET", `/uploads/${up.id}`, { headers: auth })).json.state).toBe(
      "uploading",
    );
    h.clock.advance(1000);
    const view = await h.request("GET", `/uploads/${up.id}`, { headers: auth });
    expect(view.json.state).toBe("revoked");
    expect(row(up.id).reserved_bytes).toBe(0);
    expect((await putBytes(h, up, 0, Buffer.alloc(10))).status).toBe(409);
    expect((await h.request("POST", `/uploads/${up.id}/publish`, { headers: auth })).status).toBe(
      409,
    );
  });
});

describe("POST /parcels/:id/code", () => {
  it("issues a new code that replaces the old one at once", async () => {
    h = await startParcel();
    const up = await createUpload(h, { a: 1 });
    const auth = bearer(up.manage_token);
    const early = await h.request("POST", `/parcels/${up.id}/code`, { headers: auth });
    expect(early.status).toBe(409);
    const pub = await uploadAndPublish(h, up);
    const before = row(up.id);
    const r = await h.request("POST", `/parcels/${up.id}/code`, { headers: auth });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      code: expect.stringMatching(CODE6),
      url: `${h.origin}/#/pickup/${r.json.code.replace("-", "")}`,
      urls: [
        {
          label: "This computer",
          url: `${h.origin}/#/pickup/${r.json.code.replace("-", "")}`,
        },
        {
          label: "This computer (localhost)",
          url: `http://localhost:${h.port}/#/pickup/${r.json.code.replace("-", "")}`,
        },
      ],
      expires_at: pub.json.expires_at,
      downloads_left: pub.json.downloads_left,
    });
    const after = row(up.id);
    expect(after.code_gen).toBe(before.code_gen + 1);
    expect(after.code_hash).toBe(codeHash(h.service.ctx, r.json.code));
    expect(after.code_hash).not.toBe(codeHash(h.service.ctx, pub.json.code));
    expect(auditCount("parcel.code")).toBe(1);
    await h.request("POST", `/parcels/${up.id}/revoke`, { headers: auth });
    expect((await h.request("POST", `/parcels/${up.id}/code`, { headers: auth })).status).toBe(409);
  });
});

describe("POST /parcels/:id/revoke", () => {
  it("revokes once and answers an ended parcel unchanged", async () => {
    h = await startParcel();
    await h.request("GET", "/policy");
    const up = await createUpload(h, { a: 1 });
    expect((await uploadAndPublish(h, up)).status).toBe(200);
    // The visitor cookie is enough for its own parcel.
    const r = await h.request("POST", `/parcels/${up.id}/revoke`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: up.id, state: "revoked", downloads_left: 10 });
    const ended = row(up.id).ended_at;
    expect(ended).toBe(h.service.ctx.now());
    h.clock.advance(60_000);
    const again = await h.request("POST", `/parcels/${up.id}/revoke`);
    expect(again.status).toBe(200);
    expect(again.json.state).toBe("revoked");
    expect(row(up.id).ended_at).toBe(ended);
    expect(auditCount("parcel.revoke")).toBe(1);
    expect((await h.request("POST", "/parcels/nope/revoke")).status).toBe(404);
  });
});

describe("ownership", () => {
  it("accepts the owner's cookie or Bearer token and refuses other owners with 403", async () => {
    h = await startParcel();
    await h.request("GET", "/policy");
    const up = await createUpload(h, { a: 1 });
    const stranger = new CookieJar();
    await h.request("GET", "/policy", { jar: stranger });
    const other = await h.request("POST", "/uploads", {
      body: { files: [{ name: "z", size: 1 }] },
      jar: stranger,
    });
    const path = `/uploads/${up.id}`;
    expect((await h.request("GET", path)).status).toBe(200);
    const noJar = new CookieJar();
    expect((await h.request("GET", path, { jar: noJar })).status).toBe(401);
    expect(
      (await h.request("GET", path, { jar: noJar, headers: bearer(up.manage_token) })).status,
    ).toBe(200);
    expect((await h.request("GET", path, { jar: stranger })).status).toBe(403);
    expect(
      (await h.request("GET", path, { jar: noJar, headers: bearer(other.json.manage_token) }))
        .status,
    ).toBe(403);
    expect((await h.request("POST", `/parcels/${up.id}/revoke`, { jar: stranger })).status).toBe(
      403,
    );
    expect((await h.request("POST", `${path}/publish`, { jar: stranger })).status).toBe(403);
    expect(row(up.id).state).toBe("uploading");
  });

  it("rejects missing or foreign origins, a mismatched X-Service-Origin and cross-site requests", async () => {
    h = await startParcel();
    const body = { files: [{ name: "a", size: 1 }] };
    const tries = [
      await h.request("POST", "/uploads", { body, noOrigin: true }),
      await h.request("POST", "/uploads", { body, headers: { origin: "http://evil.example" } }),
      await h.request("POST", "/uploads", {
        body,
        headers: { "x-service-origin": `http://localhost:${h.port}` },
      }),
      await h.request("POST", "/uploads", {
        body,
        headers: { "x-service-origin": "http://evil.example" },
      }),
      await h.request("POST", "/uploads", { body, headers: { "sec-fetch-site": "cross-site" } }),
    ];
    expect(tries.map((t) => t.status)).toEqual([403, 403, 403, 403, 403]);
    expect(h.repos.stats().parcels.total).toBe(0);
    const up = await createUpload(h, { a: 1 });
    const put = await h.request("PUT", `/uploads/${up.id}/files/${up.files[0].id}`, {
      raw: Buffer.from("x"),
      noOrigin: true,
      headers: bearer(up.manage_token),
    });
    expect(put.status).toBe(403);
    const same = await h.request("POST", "/uploads", {
      body,
      headers: { "x-service-origin": h.origin, "sec-fetch-site": "same-origin" },
    });
    expect(same.status).toBe(201);
  });
});

describe("GET /mine", () => {
  it("answers 401 without a visitor cookie", async () => {
    h = await startParcel();
    const r = await h.request("GET", "/mine");
    expect(r.status).toBe(401);
  });

  it("lists only the caller's own parcels, newest first, at most 100", async () => {
    h = await startParcel();
    await h.request("GET", "/policy");
    const first = await createUpload(h, { first: 1 });
    for (let i = 0; i < 100; i++) {
      h.clock.advance(1000);
      await createUpload(h, { [`f${i}`]: 1 });
    }
    const stranger = new CookieJar();
    await h.request("GET", "/policy", { jar: stranger });
    await h.request("POST", "/uploads", {
      body: { files: [{ name: "s", size: 1 }] },
      jar: stranger,
    });
    await h.request("POST", "/uploads", {
      body: { files: [{ name: "token-only", size: 1 }] },
      jar: new CookieJar(),
    });
    const r = await h.request("GET", "/mine");
    expect(r.status).toBe(200);
    expect(r.json.items).toHaveLength(100);
    expect(r.json.items[0].files[0].name).toBe("f99");
    expect(r.json.items[99].files[0].name).toBe("f0");
    expect(r.json.items.some((p: { id: string }) => p.id === first.id)).toBe(false);
    expect(r.json.items[0]).toMatchObject({ state: "uploading", sent_at: null });
    const theirs = await h.request("GET", "/mine", { jar: stranger });
    expect(
      theirs.json.items.map((p: { files: Array<{ name: string }> }) => p.files[0].name),
    ).toEqual(["s"]);
  });
});
