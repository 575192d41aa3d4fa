import http from "node:http";
import { execFileSync } from "node:child_process";
import { symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../helpers/parcel-harness.js";
import { blobFiles, waitFor } from "../helpers/parcel-uploads.js";
import {
  adminJar,
  auditRows,
  openStream,
  parcelRow,
  readAll,
  recipient,
  shareParcel,
  startPickup,
} from "./parcel-pickup-support.js";

let h: Harness;
afterEach(async () => h?.close(true));

const DAY = 86400;
const setPolicy = (patch: Record<string, unknown>) =>
  h.service.ctx.setPolicy({ ...h.service.ctx.policy(), ...patch });
const fileUrl = (id: string) => `/pickup/files/${id}/download`;
const blobOf = (fileId: string) => h.repos.parcels.file(fileId)?.sha256 ?? "";

describe("GET /pickup/files/:file/download", () => {
  it("sends the whole file with the contract's headers and takes one download", async () => {
    h = await startPickup();
    const name = 'Grüße "Q1" (final)*.txt';
    const p = await shareParcel(h, { [name]: 1000, "other.bin": 10 }, { downloads: 3 });
    const jar = await recipient(h, p.code);
    const r = await h.request("GET", fileUrl(p.files[0].id), { jar });
    expect(r.status).toBe(200);
    expect(r.body.equals(Buffer.alloc(1000, 0x61))).toBe(true);
    expect(r.headers["content-type"]).toBe("application/octet-stream");
    expect(r.headers["content-disposition"]).toBe(
      "attachment; filename=\"Gr__e _Q1_ (final)*.txt\"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22Q1%22%20%28final%29%2A.txt",
    );
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers["content-length"]).toBe("1000");
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    expect(parcelRow(h, p.id)).toMatchObject({ state: "published", downloads_left: 2 });
    expect(auditRows(h, "download.start")).toMatchObject([{ target: `file:${p.files[0].id}` }]);
    await waitFor(() => auditRows(h, "download.complete").length === 1);
    expect((await h.request("GET", "/pickup", { jar })).json.downloads_left).toBe(2);
  });

  it("answers HEAD with the same headers and consumes nothing", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 123 }, { downloads: 1 });
    const jar = await recipient(h, p.code);
    for (let i = 0; i < 3; i++) {
      const r = await h.request("HEAD", fileUrl(p.files[0].id), { jar });
      expect(r.status).toBe(200);
      expect(r.body.length).toBe(0);
      expect(r.headers).toMatchObject({
        "content-type": "application/octet-stream",
        "content-length": "123",
        "content-disposition": "attachment; filename=\"a.txt\"; filename*=UTF-8''a.txt",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      });
    }
    expect(parcelRow(h, p.id)).toMatchObject({ state: "published", downloads_left: 1 });
    expect(auditRows(h, "download.start")).toHaveLength(0);
  });

  it("ignores Range and always sends the whole body", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 100 }, { downloads: 2 });
    const jar = await recipient(h, p.code);
    const r = await h.request("GET", fileUrl(p.files[0].id), {
      jar,
      headers: { range: "bytes=10-19" },
    });
    expect(r.status).toBe(200);
    expect(r.headers["content-range"]).toBeUndefined();
    expect(r.headers["content-length"]).toBe("100");
    expect(r.body.equals(Buffer.alloc(100, 0x61))).toBe(true);
    expect(parcelRow(h, p.id).downloads_left).toBe(1);
  });

  it("answers 401 without a cookie and 404 for a file of another parcel", async () => {
    h = await startPickup();
    const a = await shareParcel(h, { "a.txt": 1 });
    const b = await shareParcel(h, { "b.txt": 1 });
    const jar = await recipient(h, a.code);
    expect((await h.request("GET", fileUrl(a.files[0].id))).status).toBe(401);
    expect((await h.request("GET", fileUrl(b.files[0].id), { jar })).status).toBe(404);
    expect((await h.request("GET", fileUrl("nope"), { jar })).status).toBe(404);
    expect(parcelRow(h, a.id).downloads_left).toBe(10);
    expect(parcelRow(h, b.id).downloads_left).toBe(10);
  });

  it("makes the parcel exhausted when the last download starts, then answers 410", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 5 }, { downloads: 2 });
    const jar = await recipient(h, p.code);
    expect((await h.request("GET", fileUrl(p.files[0].id), { jar })).status).toBe(200);
    expect(parcelRow(h, p.id).state).toBe("published");
    expect((await h.request("GET", fileUrl(p.files[0].id), { jar })).status).toBe(200);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "exhausted", downloads_left: 0 });
    expect(parcelRow(h, p.id).ended_at).toBe(h.service.ctx.now());
    const again = await h.request("GET", fileUrl(p.files[0].id), { jar });
    expect(again.status).toBe(410);
    expect(again.json).toEqual({
      error: "This parcel has no downloads left",
      code: "parcel.exhausted",
    });
    expect((await h.request("HEAD", fileUrl(p.files[0].id), { jar })).status).toBe(410);
    expect((await h.request("GET", "/pickup", { jar })).status).toBe(410);
  });

  it("answers 410 for an expired parcel without taking a download", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 5 }, { days: 1 });
    const jar = await recipient(h, p.code);
    h.clock.advance(DAY * 1000 - 1000);
    // The cookie was issued a day ago: resolve again right before the end.
    const fresh = await recipient(h, p.code);
    h.clock.advance(1000);
    expect((await h.request("GET", fileUrl(p.files[0].id), { jar: fresh })).status).toBe(410);
    expect((await h.request("GET", fileUrl(p.files[0].id), { jar })).status).toBe(401);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "expired", downloads_left: 10 });
  });

  it("gives exactly 5 full bodies and 45 answers of 410 to 50 parallel requests against 5 left", async () => {
    h = await startPickup();
    const size = 256 * 1024;
    const p = await shareParcel(h, { "big.bin": size }, { downloads: 7 });
    const jar = await recipient(h, p.code);
    for (let i = 0; i < 2; i++) {
      expect((await h.request("GET", fileUrl(p.files[0].id), { jar })).status).toBe(200);
    }
    expect(parcelRow(h, p.id).downloads_left).toBe(5);
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => h.request("GET", fileUrl(p.files[0].id), { jar })),
    );
    const ok = replies.filter((r) => r.status === 200);
    const gone = replies.filter((r) => r.status === 410);
    expect(ok).toHaveLength(5);
    expect(gone).toHaveLength(45);
    const expected = Buffer.alloc(size, 0x61);
    for (const r of ok) expect(r.body.equals(expected)).toBe(true);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "exhausted", downloads_left: 0 });
    expect(auditRows(h, "download.start")).toHaveLength(7);
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0);
    expect(auditRows(h, "download.complete")).toHaveLength(7);
  });

  it("keeps a download counted when the client disconnects mid-body", async () => {
    h = await startPickup();
    const size = 32 * 1024 * 1024;
    const p = await shareParcel(h, { "big.bin": size }, { downloads: 3, days: 1 });
    const jar = await recipient(h, p.code);
    const sha = blobOf(p.files[0].id);
    const { req, res } = await openStream(h, jar, fileUrl(p.files[0].id));
    expect(res.statusCode).toBe(200);
    // While the body is held up, the transfer is visible and its blob is held.
    expect(h.service.ctx.activity.downloadsActive).toBe(1);
    expect(h.service.ctx.activity.reading.get(sha)).toBe(1);
    const admin = await adminJar(h);
    const stats = await h.request("GET", "/admin/stats", { jar: admin });
    expect(stats.json.concurrency.downloads_active).toBe(1);
    const first = await new Promise<Buffer>((resolve) => {
      res.once("data", resolve);
      res.resume();
    });
    expect(first.length).toBeGreaterThan(0);
    req.destroy();
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0);
    expect(h.service.ctx.activity.reading.has(sha)).toBe(false);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "published", downloads_left: 2 });
    expect(parcelRow(h, p.id).expires_at).toBe(p.publish.json.expires_at);
    expect(auditRows(h, "download.complete")).toHaveLength(0);
  });

  it("never lets cleanup free a blob a running download reads", async () => {
    h = await startPickup();
    const size = 32 * 1024 * 1024;
    const p = await shareParcel(h, { "big.bin": size }, { downloads: 3 }, 0x37);
    const jar = await recipient(h, p.code);
    const { res } = await openStream(h, jar, fileUrl(p.files[0].id));
    expect(res.statusCode).toBe(200);
    const admin = await adminJar(h);
    const del = await h.request("POST", `/admin/parcels/${p.id}/delete`, { jar: admin });
    expect(del.status).toBe(200);
    const clean = await h.request("POST", "/admin/cleanup", { jar: admin });
    expect(clean.status).toBe(200);
    expect(clean.json).toMatchObject({ parcels: 1, bytes: 0 });
    expect(blobFiles(h)).toHaveLength(1);
    const body = await readAll(res);
    expect(body.length).toBe(size);
    expect(body.equals(Buffer.alloc(size, 0x37))).toBe(true);
    // Once nothing reads it any more, the bytes are reclaimed in the background.
    await waitFor(() => blobFiles(h).length === 0);
  });

  it("returns the download when the file cannot be read before the first byte", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 64 }, { downloads: 1 });
    const jar = await recipient(h, p.code);
    const path = h.service.ctx.storage.pathOf(blobOf(p.files[0].id));
    unlinkSync(path);
    // A link to itself: open() fails with ELOOP (a missing file would be a damaged copy).
    symlinkSync(path, path);
    const r = await h.request("GET", fileUrl(p.files[0].id), { jar });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ error: expect.any(String), code: "download.read_failed" });
    expect(r.headers["content-disposition"]).toBeUndefined();
    // The last download came back, so the parcel is published again (it was exhausted).
    expect(parcelRow(h, p.id)).toMatchObject({ state: "published", downloads_left: 1 });
    expect(parcelRow(h, p.id).ended_at).toBeNull();
    expect(auditRows(h, "download.start")).toHaveLength(1);
    unlinkSync(path);
    writeFileSync(path, Buffer.alloc(64, 0x61));
    const ok = await h.request("GET", fileUrl(p.files[0].id), { jar });
    expect(ok.status).toBe(200);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "exhausted", downloads_left: 0 });
  });

  it("returns the download when the client leaves before the first byte was sent", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 64 }, { downloads: 2 });
    const jar = await recipient(h, p.code);
    // The blob becomes a FIFO: the service's open() waits until the test opens the write end,
    // which holds the download after its deduction and before any byte.
    const path = h.service.ctx.storage.pathOf(blobOf(p.files[0].id));
    unlinkSync(path);
    execFileSync("mkfifo", [path]);
    const headers: Record<string, string> = {
      host: `127.0.0.1:${h.port}`,
      cookie: jar.header() ?? "",
    };
    const req = http.request({
      host: "127.0.0.1",
      port: h.port,
      path: `/api/v1${fileUrl(p.files[0].id)}`,
      headers,
    });
    req.on("error", () => undefined);
    req.end();
    await waitFor(() => parcelRow(h, p.id).downloads_left === 1);
    expect(h.service.ctx.activity.downloadsActive).toBe(1);
    req.destroy();
    // The service has seen the client leave (its socket is gone) before the first byte.
    const end = Date.now() + 10_000;
    while ((await h.openConnections()) > 0 && Date.now() < end)
      await new Promise((r) => setImmediate(r));
    expect(await h.openConnections()).toBe(0);
    const writer = await open(path, "w");
    await writer.close();
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "published", downloads_left: 2 });
    expect(auditRows(h, "download.complete")).toHaveLength(0);
  });
});

describe("expiry renewal on a complete download", () => {
  async function renewAfter(
    policy: Record<string, unknown>,
    manifest: Record<string, unknown>,
    waitSeconds: number,
  ): Promise<{
    sent: number;
    before: number;
    after: number;
    id: string;
    code: string;
    fileId: string;
  }> {
    h = await startPickup();
    setPolicy(policy);
    const p = await shareParcel(h, { "a.txt": 10 }, manifest);
    const sent = h.service.ctx.now();
    h.clock.advance(waitSeconds * 1000);
    const jar = await recipient(h, p.code);
    const r = await h.request("GET", fileUrl(p.files[0].id), { jar });
    expect(r.status).toBe(200);
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0);
    return {
      sent,
      before: p.publish.json.expires_at,
      after: parcelRow(h, p.id).expires_at,
      id: p.id,
      code: p.code,
      fileId: p.files[0].id,
    };
  }

  it("default mode: min(max(old, done) + renew_days, sent_at + renew_cap_days)", async () => {
    const t = await renewAfter({}, { days: 1 }, DAY / 2);
    expect(t.before).toBe(t.sent + DAY);
    // max(sent + 1 d, sent + 0.5 d) + 3 d
    expect(t.after).toBe(t.sent + 4 * DAY);
    const audit = auditRows(h, "download.complete");
    expect(audit[0].detail).toMatchObject({ expires_at: t.sent + 4 * DAY, bytes: 10 });
  });

  it("term mode: min(max(old, done + renew_days), sent_at + renew_cap_days)", async () => {
    const t = await renewAfter({ renewal_mode: "term" }, { days: 1 }, DAY / 2);
    // max(sent + 1 d, sent + 0.5 d + 3 d)
    expect(t.after).toBe(t.sent + 3 * DAY + DAY / 2);
  });

  it("default mode stops at the cap", async () => {
    const t = await renewAfter({ renew_cap_days: 4 }, { days: 2 }, DAY);
    // min(sent + 2 d + 3 d, sent + 4 d)
    expect(t.after).toBe(t.sent + 4 * DAY);
  });

  it("term mode never moves the expiry earlier", async () => {
    const t = await renewAfter({ renewal_mode: "term" }, { days: 7 }, DAY);
    // max(sent + 7 d, sent + 1 d + 3 d) = old
    expect(t.after).toBe(t.sent + 7 * DAY);
  });

  it("a cap below the current expiry keeps the current expiry", async () => {
    const t = await renewAfter({ renew_cap_days: 3 }, { days: 7 }, DAY);
    expect(t.after).toBe(t.sent + 7 * DAY);
  });

  it("does not renew when renew is false", async () => {
    const t = await renewAfter({}, { days: 1, renew: false }, DAY / 2);
    expect(t.after).toBe(t.sent + DAY);
  });

  it("does not renew after the last download", async () => {
    const t = await renewAfter({}, { days: 1, downloads: 1 }, DAY / 2);
    expect(t.after).toBe(t.sent + DAY);
  });

  it("renews again on each later complete download", async () => {
    const t = await renewAfter({}, { days: 1, downloads: 5 }, DAY / 2);
    expect(t.after).toBe(t.sent + 4 * DAY);
    h.clock.advance(2 * DAY * 1000);
    const jar = await recipient(h, t.code);
    expect((await h.request("GET", fileUrl(t.fileId), { jar })).status).toBe(200);
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0);
    // max(sent + 4 d, sent + 2.5 d) + 3 d
    expect(parcelRow(h, t.id).expires_at).toBe(t.sent + 7 * DAY);
  });
});
