import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { auditOf, startParcel, type Harness } from "../helpers/parcel-harness.js";
import {
  bearer,
  blobFiles,
  createUpload,
  putBytes,
  streamPut,
  tempFiles,
  waitFor,
} from "../helpers/parcel-uploads.js";

let h: Harness;
afterEach(async () => h?.close(true));

const fileState = (id: string) => h.repos.parcels.file(id)?.state;
const parcelRow = (id: string) => h.repos.parcels.byId(id)!;

describe("PUT /uploads/:id/files/:file (streaming)", () => {
  it("leaves no temporary file and a retryable file when the client disconnects mid-upload", async () => {
    h = await startParcel();
    const up = await createUpload(h, { big: 4 * 1024 * 1024 });
    const path = `/uploads/${up.id}/files/${up.files[0].id}`;
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < 64; i++) yield Buffer.alloc(64 * 1024, i);
      })(),
    );
    const r = await streamPut(h, path, source, {
      headers: bearer(up.manage_token),
      contentLength: 4 * 1024 * 1024,
      abortAfter: 1024 * 1024,
    });
    expect(r.status).toBe(0);
    await waitFor(() => h.service.ctx.activity.uploadsActive === 0);
    expect(fileState(up.files[0].id)).toBe("failed");
    expect(tempFiles(h)).toEqual([]);
    expect(h.service.ctx.activity.uploading.size).toBe(0);
    const [audit] = auditOf(h, "upload.fail");
    expect(audit.detail).toMatchObject({ reason: "aborted" });
    // The whole file can be sent again.
    const retry = await putBytes(h, up, 0, Buffer.alloc(4 * 1024 * 1024, 9));
    expect(retry.status).toBe(200);
    expect(retry.json.state).toBe("ready");
  });

  it("refuses a second concurrent PUT of the same file with 409 and counts the upload as active", async () => {
    h = await startParcel();
    const up = await createUpload(h, { a: 100_000 });
    const path = `/uploads/${up.id}/files/${up.files[0].id}`;
    const body = new PassThrough();
    const first = streamPut(h, path, body, { headers: bearer(up.manage_token) });
    body.write(Buffer.alloc(50_000, 1));
    await waitFor(() => h.service.ctx.activity.uploadsActive === 1);
    const second = await putBytes(h, up, 0, Buffer.alloc(100_000, 1));
    expect(second.status).toBe(409);
    body.end(Buffer.alloc(50_000, 1));
    const done = await first;
    expect(done.status).toBe(200);
    expect(h.service.ctx.activity.uploadsActive).toBe(0);
  });

  it("discards the bytes when the session times out during the upload", async () => {
    h = await startParcel();
    const up = await createUpload(h, { a: 1000, b: 1 });
    const path = `/uploads/${up.id}/files/${up.files[0].id}`;
    const body = new PassThrough();
    const pending = streamPut(h, path, body, { headers: bearer(up.manage_token) });
    body.write(Buffer.alloc(500, 3));
    await waitFor(() => h.service.ctx.activity.uploadsActive === 1);
    h.clock.advance(3601 * 1000);
    // The running PUT keeps the sweep waiting, but the deadline already refuses new ones.
    expect((await putBytes(h, up, 1, Buffer.alloc(1))).status).toBe(409);
    body.end(Buffer.alloc(500, 3));
    const r = await pending;
    expect(r.status).toBe(409);
    expect(blobFiles(h)).toEqual([]);
    expect(tempFiles(h)).toEqual([]);
    const view = await h.request("GET", `/uploads/${up.id}`, { headers: bearer(up.manage_token) });
    expect(view.json.state).toBe("revoked");
    expect(parcelRow(up.id).reserved_bytes).toBe(0);
  });

  it("answers 413 to a long chunked body as soon as it passes the declared size", async () => {
    h = await startParcel();
    const up = await createUpload(h, { a: 1000 });
    let made = 0;
    const source = new Readable({
      read() {
        made += 64 * 1024;
        this.push(made > 64 * 1024 * 1024 ? null : Buffer.alloc(64 * 1024, 1));
      },
    });
    const r = await streamPut(h, `/uploads/${up.id}/files/${up.files[0].id}`, source, {
      headers: bearer(up.manage_token),
    });
    expect(r.status).toBe(413);
    expect(r.headers.connection).toBe("close");
    // The server stopped reading long before the 64 MiB the client offered.
    expect(made).toBeLessThan(32 * 1024 * 1024);
    await waitFor(() => h.service.ctx.activity.uploadsActive === 0);
    expect(fileState(up.files[0].id)).toBe("failed");
    expect(tempFiles(h)).toEqual([]);
  });

  it("cuts an upload off with 429 once it runs past the daily allowance", async () => {
    h = await startParcel();
    const ctx = h.service.ctx;
    ctx.setPolicy({ ...ctx.policy(), daily_upload_bytes: 8 * 1024 * 1024 });
    const up = await createUpload(h, { a: 8 * 1024 * 1024 });
    const path = `/uploads/${up.id}/files/${up.files[0].id}`;
    const half = Readable.from([Buffer.alloc(4 * 1024 * 1024, 1)]);
    const failed = await streamPut(h, path, half, { headers: bearer(up.manage_token) });
    expect(failed.status).toBe(400);
    const full = Readable.from(
      (function* () {
        for (let i = 0; i < 128; i++) yield Buffer.alloc(64 * 1024, 2);
      })(),
    );
    const r = await streamPut(h, path, full, {
      headers: bearer(up.manage_token),
      contentLength: 8 * 1024 * 1024,
    });
    expect(r.status).toBe(429);
    expect(r.headers["retry-after"]).toBe(String(12 * 3600));
    await waitFor(() => ctx.activity.uploadsActive === 0);
    expect(fileState(up.files[0].id)).toBe("failed");
    expect(tempFiles(h)).toEqual([]);
    expect(h.repos.traffic.used("127.0.0.1", h.service.ctx.now())).toBeGreaterThan(8 * 1024 * 1024);
  });

  it("keeps memory flat while a 256 MiB body streams through", async () => {
    h = await startParcel();
    const size = 256 * 1024 * 1024;
    const up = await createUpload(h, { huge: size });
    const chunk = 64 * 1024;
    const expected = createHash("sha256");
    let made = 0;
    // Generated on the fly: each chunk is created, hashed and handed over, never kept.
    const source = new Readable({
      read() {
        if (made >= size) return void this.push(null);
        const buf = Buffer.alloc(chunk, made / chunk);
        made += chunk;
        expected.update(buf);
        this.push(buf);
      },
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const r = await streamPut(h, `/uploads/${up.id}/files/${up.files[0].id}`, source, {
      headers: bearer(up.manage_token),
      contentLength: size,
    });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ state: "ready", sha256: expected.digest("hex") });
    const growth = peak - before;
    console.log(`rss growth during a 256 MiB upload: ${(growth / 1048576).toFixed(1)} MiB`);
    expect(growth).toBeLessThan(64 * 1024 * 1024);
  });
});

describe("restart recovery", () => {
  it("revokes unpublished sessions, frees their reservations and removes partial data", async () => {
    h = await startParcel();
    const ctx = () => h.service.ctx;
    ctx().setRuntime({ ...ctx().runtime(), data_budget_bytes: 3000 });
    const up = await createUpload(h, { a: 1000, b: 2000 });
    expect((await putBytes(h, up, 0, Buffer.alloc(1000, 5))).status).toBe(200);
    // Partial data of a transfer that the restart cut short.
    writeFileSync(join(h.dataDir, "parcel", "tmp", `${up.files[1].id}.x.part`), "partial");
    expect(
      (await h.request("POST", "/uploads", { body: { files: [{ name: "c", size: 1 }] } })).status,
    ).toBe(507);
    h = await h.restart();
    expect(parcelRow(up.id)).toMatchObject({ state: "revoked", reserved_bytes: 0 });
    expect(tempFiles(h)).toEqual([]);
    const view = await h.request("GET", `/uploads/${up.id}`, { headers: bearer(up.manage_token) });
    expect(view.json.state).toBe("revoked");
    // Only the 1000 stored bytes remain in use (until cleanup reclaims them).
    const admit = await h.request("POST", "/uploads", {
      body: { files: [{ name: "c", size: 2000 }] },
    });
    expect(admit.status).toBe(201);
  });
});
