import { afterEach, describe, expect, it } from "vitest";
import { auditOf, startParcel, type Harness } from "../helpers/parcel-harness.js";
import {
  bearer,
  blobFiles,
  createUpload,
  putBytes,
  tempFiles,
  uploadAndPublish,
} from "../helpers/parcel-uploads.js";
import type { Policy, Runtime } from "../../server/parcel/domain/policy.js";

let h: Harness;
afterEach(async () => h?.close(true));

function setPolicy(patch: Partial<Policy>): void {
  const ctx = h.service.ctx;
  ctx.setPolicy({ ...ctx.policy(), ...patch });
}
function setRuntime(patch: Partial<Runtime>): void {
  const ctx = h.service.ctx;
  ctx.setRuntime({ ...ctx.runtime(), ...patch });
}
const post = (body: unknown) => h.request("POST", "/uploads", { body });
const one = (name: string, size = 1) => ({ files: [{ name, size }] });

describe("POST /uploads", () => {
  it("creates a session: 201 with ids, a manage token and a one-hour deadline", async () => {
    h = await startParcel();
    const r = await post({
      files: [
        { name: "a.txt", size: 3 },
        { name: "b.bin", size: 0 },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({
      id: expect.stringMatching(/^[\w-]{16,}$/),
      manage_token: expect.stringMatching(/^[\w-]{22,}$/),
      files: [
        { id: expect.any(String), name: "a.txt", size: 3 },
        { id: expect.any(String), name: "b.bin", size: 0 },
      ],
      expires_at: h.service.ctx.now() + 3600,
    });
    const row = h.repos.parcels.byId(r.json.id)!;
    expect(row.token_hash).not.toBe(r.json.manage_token);
    expect(row).toMatchObject({ reserved_bytes: 3, days: 7, downloads_left: 10, renew: 1 });
    const view = await h.request("GET", `/uploads/${r.json.id}`, {
      headers: bearer(r.json.manage_token),
    });
    expect(view.status).toBe(200);
    expect(view.json).toMatchObject({
      id: r.json.id,
      state: "uploading",
      sent_at: null,
      has_password: false,
      renew: true,
      downloads_allowed: 10,
      files: [
        { name: "a.txt", state: "pending" },
        { name: "b.bin", state: "pending" },
      ],
    });
    const audit = auditOf(h, "upload.create");
    expect(audit).toMatchObject([{ source: "token@127.0.0.1", target: `parcel:${r.json.id}` }]);
  });

  it("answers 400 for each invalid manifest", async () => {
    h = await startParcel();
    setPolicy({ max_files: 2, max_days: 10, max_downloads: 5 });
    const bad: unknown[] = [
      undefined,
      [],
      { files: [] },
      {
        files: [
          { name: "a", size: 1 },
          { name: "b", size: 1 },
          { name: "c", size: 1 },
        ],
      },
      one(""),
      one("x".repeat(256)),
      one("é".repeat(128)), // 256 bytes
      one("a/b"),
      one("a\\b"),
      one("a\u0000b"),
      one("tab\there"),
      one("del\u007f"),
      one("."),
      one(".."),
      one("\ud800"),
      {
        files: [
          { name: "Same.txt", size: 1 },
          { name: "same.TXT", size: 1 },
        ],
      },
      { files: [{ name: "a", size: -1 }] },
      { files: [{ name: "a", size: 1.5 }] },
      { files: [{ name: "a", size: "1" }] },
      { files: [{ name: "a" }] },
      { ...one("a"), days: 0 },
      { ...one("a"), days: 11 },
      { ...one("a"), days: 2.5 },
      { ...one("a"), downloads: 0 },
      { ...one("a"), downloads: 6 },
      { ...one("a"), renew: "yes" },
      { ...one("a"), password: 5 },
    ];
    for (const body of bad) {
      const r =
        body === undefined
          ? await h.request("POST", "/uploads", { raw: Buffer.from("{nope") })
          : await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error, JSON.stringify(body)).toEqual(expect.any(String));
    }
    expect(h.repos.stats().parcels.total).toBe(0);
    // The edges themselves are accepted.
    const ok = await post({
      files: [
        { name: "x".repeat(255), size: 0 },
        { name: "日本語 ...名前", size: 1 },
      ],
      days: 10,
      downloads: 5,
      renew: false,
    });
    expect(ok.status).toBe(201);
  });

  it("requires a password when the policy says so", async () => {
    h = await startParcel();
    setPolicy({ require_password: true });
    expect((await post(one("a"))).status).toBe(400);
    expect((await post({ ...one("a"), password: "" })).status).toBe(400);
    const r = await post({ ...one("a"), password: "hunter2" });
    expect(r.status).toBe(201);
    const view = await h.request("GET", `/uploads/${r.json.id}`, {
      headers: bearer(r.json.manage_token),
    });
    expect(view.json.has_password).toBe(true);
    expect(h.repos.parcels.byId(r.json.id)?.password_hash).toMatch(/^scrypt\$/);
  });

  it("answers 413 for a file over max_file_bytes or a total over max_parcel_bytes", async () => {
    h = await startParcel();
    setPolicy({ max_file_bytes: 100, max_parcel_bytes: 150 });
    expect((await post(one("a", 101))).status).toBe(413);
    const total = await post({
      files: [
        { name: "a", size: 100 },
        { name: "b", size: 51 },
      ],
    });
    expect(total.status).toBe(413);
    expect(total.json.error).toMatch(/150/);
    expect(
      (
        await post({
          files: [
            { name: "a", size: 100 },
            { name: "b", size: 50 },
          ],
        })
      ).status,
    ).toBe(201);
  });

  it("answers 403 with a clear message while uploads are switched off", async () => {
    h = await startParcel();
    setPolicy({ uploads_enabled: false });
    const r = await post(one("a"));
    expect(r.status).toBe(403);
    expect(r.json.error).toMatch(/uploads are switched off/i);
  });

  it("answers 507 when the data budget, file budget or disk headroom would be exceeded", async () => {
    let free = 10_000;
    h = await startParcel({ diskFree: () => free });
    setRuntime({ data_budget_bytes: 1000, file_budget: 3, disk_headroom_bytes: 1000 });
    const a = await createUpload(h, { a: 600 });
    // 600 reserved + 401 > 1000
    const over = await post(one("b", 401));
    expect(over.status).toBe(507);
    expect(over.json.error).toMatch(/data budget/);
    // A ready file moves from reservation to stored blob bytes: still counted once.
    expect((await putBytes(h, a, 0, Buffer.alloc(600, 1))).status).toBe(200);
    expect((await post(one("b", 401))).status).toBe(507);
    expect((await post(one("b", 400))).status).toBe(201);
    // File budget: 2 files live, 3 allowed.
    const files = await post({
      files: [
        { name: "x", size: 0 },
        { name: "y", size: 0 },
      ],
    });
    expect(files.status).toBe(507);
    expect(files.json.error).toMatch(/file budget/);
    // Headroom: free disk 10 000 - headroom 1000 - open reservation 400 leaves 8600.
    setRuntime({ data_budget_bytes: 1e12, file_budget: 1e6 });
    expect((await post(one("c", 8601))).status).toBe(507);
    free = 20_000;
    expect((await post(one("c", 8601))).status).toBe(201);
  });

  it("releases a revoked session's reservation for new admissions", async () => {
    h = await startParcel();
    setRuntime({ data_budget_bytes: 1000 });
    const a = await createUpload(h, { a: 1000 });
    expect((await post(one("b", 1))).status).toBe(507);
    const rv = await h.request("POST", `/parcels/${a.id}/revoke`, {
      headers: bearer(a.manage_token),
    });
    expect(rv.status).toBe(200);
    expect((await post(one("b", 1000))).status).toBe(201);
  });

  it("admits concurrent sessions only while space remains", async () => {
    h = await startParcel();
    setRuntime({ data_budget_bytes: 1000 });
    const replies = await Promise.all(Array.from({ length: 6 }, () => post(one("a", 300))));
    const codes = replies.map((r) => r.status).sort();
    expect(codes).toEqual([201, 201, 201, 507, 507, 507]);
  });

  it("answers 429 with Retry-After until UTC midnight when the declared total exceeds today's allowance", async () => {
    h = await startParcel(); // the clock starts at 12:00 UTC
    setPolicy({ daily_upload_bytes: 1000 });
    const a = await createUpload(h, { a: 700 });
    expect((await putBytes(h, a, 0, Buffer.alloc(700))).status).toBe(200);
    const r = await post(one("b", 301));
    expect(r.status).toBe(429);
    expect(r.headers["retry-after"]).toBe(String(12 * 3600));
    expect((await post(one("b", 300))).status).toBe(201);
    // A new UTC day starts a new allowance.
    h.clock.advance(12 * 3600 * 1000);
    expect((await post(one("c", 1000))).status).toBe(201);
  });
});

describe("PUT /uploads/:id/files/:file", () => {
  it("stores a body of exactly the declared size and answers the ready file", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "a.txt": 5, empty: 0 });
    const r = await putBytes(h, up, 0, Buffer.from("hello"));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      id: up.files[0].id,
      name: "a.txt",
      size: 5,
      state: "ready",
      sha256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    });
    expect(h.repos.stats().files.blobs).toBe(1);
    const blob = h.repos.blobs.blob(r.json.sha256);
    expect(blob).toMatchObject({ size: 5, crc32: 0x3610a686 });
    const empty = await putBytes(h, up, 1, Buffer.alloc(0));
    expect(empty.json.state).toBe("ready");
    expect(h.repos.parcels.byId(up.id)?.reserved_bytes).toBe(0);
    expect(tempFiles(h)).toEqual([]);
    // A ready file answers 200 and nothing changes, whatever is sent.
    const again = await putBytes(h, up, 0, Buffer.from("other"));
    expect(again.status).toBe(200);
    expect(again.json.sha256).toBe(r.json.sha256);
  });

  it("fails a shorter or longer body (400/413), removes the partial data, and accepts a full retry", async () => {
    h = await startParcel();
    const up = await createUpload(h, { a: 10 });
    const path = `/uploads/${up.id}/files/${up.files[0].id}`;
    const auth = bearer(up.manage_token);
    const chunked = { ...auth, "transfer-encoding": "chunked" };
    // Content-Length disagreeing with the declared size is refused before reading.
    const short = await h.request("PUT", path, { raw: Buffer.alloc(9), headers: auth });
    expect(short.status).toBe(400);
    const long = await h.request("PUT", path, { raw: Buffer.alloc(11), headers: auth });
    expect(long.status).toBe(413);
    // Chunked bodies are counted as they arrive.
    const chunkedShort = await h.request("PUT", path, {
      raw: Buffer.alloc(9),
      chunked: true,
      headers: chunked,
    });
    expect(chunkedShort.status).toBe(400);
    let view = await h.request("GET", `/uploads/${up.id}`, { headers: auth });
    expect(view.json.files[0].state).toBe("failed");
    const chunkedLong = await h.request("PUT", path, {
      raw: Buffer.alloc(11),
      chunked: true,
      headers: chunked,
    });
    expect(chunkedLong.status).toBe(413);
    expect(tempFiles(h)).toEqual([]);
    expect(blobFiles(h)).toEqual([]);
    const ok = await h.request("PUT", path, {
      raw: Buffer.alloc(10, 7),
      chunked: true,
      headers: chunked,
    });
    expect(ok.status).toBe(200);
    view = await h.request("GET", `/uploads/${up.id}`, { headers: auth });
    expect(view.json.files[0].state).toBe("ready");
    expect(auditOf(h, "upload.fail")).toHaveLength(4);
  });

  it("answers 404 for an unknown file and 409 once the parcel is not uploading", async () => {
    h = await startParcel();
    const up = await createUpload(h, { a: 1, b: 1 });
    const auth = bearer(up.manage_token);
    const unknown = await h.request("PUT", `/uploads/${up.id}/files/nope`, {
      raw: Buffer.alloc(1),
      headers: auth,
    });
    expect(unknown.status).toBe(404);
    const unknownParcel = await h.request("PUT", `/uploads/nope/files/${up.files[0].id}`, {
      raw: Buffer.alloc(1),
      headers: auth,
    });
    expect(unknownParcel.status).toBe(404);
    expect((await putBytes(h, up, 0, Buffer.alloc(1))).status).toBe(200);
    await h.request("POST", `/parcels/${up.id}/revoke`, { headers: auth });
    // 409 wins over the ready-file rule.
    expect((await putBytes(h, up, 0, Buffer.alloc(1))).status).toBe(409);
    expect((await putBytes(h, up, 1, Buffer.alloc(1))).status).toBe(409);
  });

  it("stores identical content once (content-addressed dedup)", async () => {
    h = await startParcel();
    const a = await createUpload(h, { one: 1000 });
    const b = await createUpload(h, { two: 1000 });
    const bytes = Buffer.alloc(1000, 42);
    expect((await putBytes(h, a, 0, bytes)).status).toBe(200);
    expect((await putBytes(h, b, 0, bytes)).status).toBe(200);
    expect(blobFiles(h)).toHaveLength(1);
    expect(h.repos.stats().files.blobs).toBe(1);
    expect((await uploadAndPublish(h, a)).status).toBe(200);
  });

  it("counts failed retries toward the daily traffic and cuts an upload off with 429", async () => {
    h = await startParcel();
    setPolicy({ daily_upload_bytes: 1000 });
    const up = await createUpload(h, { a: 800 });
    const path = `/uploads/${up.id}/files/${up.files[0].id}`;
    const auth = bearer(up.manage_token);
    const chunked = { ...auth, "transfer-encoding": "chunked" };
    const fail = await h.request("PUT", path, {
      raw: Buffer.alloc(300),
      chunked: true,
      headers: chunked,
    });
    expect(fail.status).toBe(400);
    // 300 already counted: 800 more runs past 1000.
    const cut = await h.request("PUT", path, { raw: Buffer.alloc(800), headers: auth });
    expect(cut.status).toBe(429);
    expect(Number(cut.headers["retry-after"])).toBe(12 * 3600);
    expect(tempFiles(h)).toEqual([]);
    const view = await h.request("GET", `/uploads/${up.id}`, { headers: auth });
    expect(view.json.files[0].state).toBe("failed");
    expect((await post(one("b", 1))).status).toBe(429);
  });

  it("needs the owner's credential: 401 without, 403 for another owner's", async () => {
    h = await startParcel();
    const a = await createUpload(h, { a: 1 });
    const b = await createUpload(h, { b: 1 });
    const path = `/uploads/${a.id}/files/${a.files[0].id}`;
    const none = await h.request("PUT", path, { raw: Buffer.alloc(1) });
    expect(none.status).toBe(401);
    const other = await h.request("PUT", path, {
      raw: Buffer.alloc(1),
      headers: bearer(b.manage_token),
    });
    expect(other.status).toBe(403);
    expect((await h.request("GET", `/uploads/${a.id}`)).status).toBe(401);
    expect(
      (await h.request("GET", `/uploads/${a.id}`, { headers: bearer(b.manage_token) })).status,
    ).toBe(403);
    expect(
      (await h.request("GET", `/uploads/${a.id}`, { headers: { authorization: "Basic x" } }))
        .status,
    ).toBe(401);
  });
});
