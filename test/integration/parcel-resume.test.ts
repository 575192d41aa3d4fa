import http from "node:http";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startParcel, type Harness } from "../helpers/parcel-harness.js";
import {
  bearer,
  createUpload,
  putBytes,
  waitFor,
  type Created,
} from "../helpers/parcel-uploads.js";

/**
 * Resumable uploads (tus 1.0 core): HEAD says how many bytes of a file are stored, PATCH
 * appends from exactly there, and a connection cut in the middle loses nothing that arrived.
 */

let h: Harness;
afterEach(async () => {
  await h?.close(true);
});

const OFFSET_TYPE = "application/offset+octet-stream";
const MiB = 1048576;

interface PatchReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const filePath = (up: Created, i: number) => `/uploads/${up.id}/files/${up.files[i].id}`;
const partPath = (up: Created, i: number) =>
  join(h.dataDir, "parcel", "tmp", `${up.files[i].id}.resume.part`);
const partSize = (up: Created, i: number) =>
  existsSync(partPath(up, i)) ? statSync(partPath(up, i)).size : 0;

/**
 * A PATCH on a real socket. With `cutAfter`, only that many bytes of the body are sent (the
 * request still announces the whole body); once the service has written them to the part,
 * the client socket is destroyed and the promise resolves with status 0.
 */
function patch(
  up: Created,
  i: number,
  offset: number | string | undefined,
  body: Buffer,
  opts: { contentType?: string; cutAfter?: number; tus?: string | null } = {},
): Promise<PatchReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host: `127.0.0.1:${h.port}`,
      origin: h.origin,
      "content-type": opts.contentType ?? OFFSET_TYPE,
      "content-length": String(body.length),
      ...bearer(up.manage_token),
    };
    if (opts.tus !== null) headers["tus-resumable"] = opts.tus ?? "1.0.0";
    if (offset !== undefined) headers["upload-offset"] = String(offset);
    const req = http.request({
      host: "127.0.0.1",
      port: h.port,
      method: "PATCH",
      path: `/api/v1${filePath(up, i)}`,
      headers,
    });
    let cut = false;
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("error", (err) => {
      if (cut) resolve({ status: 0, headers: {}, text: "" });
      else reject(err);
    });
    if (opts.cutAfter === undefined) {
      req.end(body);
      return;
    }
    const sent = opts.cutAfter;
    req.write(body.subarray(0, sent));
    // Cut only once every byte sent is in the part, so the test knows what the service got.
    void waitFor(() => partSize(up, i) >= sent, 10_000).then(() => {
      cut = true;
      req.destroy();
    }, reject);
  });
}

function head(up: Created, i: number) {
  return h.request("HEAD", filePath(up, i), {
    headers: { ...bearer(up.manage_token), "tus-resumable": "1.0.0" },
  });
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** The file's row and the bytes stored under its sha256. */
function stored(up: Created, i: number): { state: string; sha256: string | null; bytes: Buffer } {
  const file = h.repos.parcels.file(up.files[i].id);
  if (!file) throw new Error(`no file ${up.files[i].id} in storage`);
  const row = { state: file.state, sha256: file.sha256 };
  const bytes = row.sha256
    ? readFileSync(join(h.dataDir, "parcel", "blobs", row.sha256.slice(0, 2), row.sha256))
    : Buffer.alloc(0);
  return { ...row, bytes };
}

function trafficBytes(): number {
  // Every request of these tests comes from this machine; a fresh repository holds nothing
  // unwritten, so this is what the service has stored.
  return h.repos.traffic.used("127.0.0.1", h.service.ctx.now());
}

const idle = (up: Created, i: number) =>
  waitFor(() => !h.service.ctx.activity.uploading.has(up.files[i].id), 10_000);

describe("resumable uploads", () => {
  it("resumes a PATCH cut at 50% from the stored offset; bytes, sha256 and traffic are exact", async () => {
    h = await startParcel();
    const size = 4 * MiB;
    const data = randomBytes(size);
    const up = await createUpload(h, { big: size });
    const half = size / 2;

    const first = await patch(up, 0, 0, data, { cutAfter: half });
    expect(first.status).toBe(0);
    await idle(up, 0);

    const probe = await head(up, 0);
    expect(probe.status).toBe(200);
    expect(probe.body.length).toBe(0);
    expect(probe.headers["tus-resumable"]).toBe("1.0.0");
    expect(probe.headers["upload-length"]).toBe(String(size));
    expect(probe.headers["cache-control"]).toBe("no-store");
    const offset = Number(probe.headers["upload-offset"]);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(half);
    // Still resumable, not failed.
    expect(stored(up, 0).state).toBe("pending");

    const rest = await patch(up, 0, offset, data.subarray(offset));
    expect(rest.status).toBe(204);
    expect(rest.headers["upload-offset"]).toBe(String(size));
    expect(rest.headers["tus-resumable"]).toBe("1.0.0");

    const file = stored(up, 0);
    expect(file.state).toBe("ready");
    expect(file.sha256).toBe(sha256(data));
    expect(file.bytes.equals(data)).toBe(true);
    expect(existsSync(partPath(up, 0))).toBe(false);
    // Every byte that reached the service counted once: the half, then the rest.
    expect(trafficBytes()).toBe(half + (size - offset));
    expect(offset).toBe(half);

    const done = await head(up, 0);
    expect(done.headers["upload-offset"]).toBe(String(size));
    const publish = await h.request("POST", `/uploads/${up.id}/publish`, {
      headers: bearer(up.manage_token),
    });
    expect(publish.status).toBe(200);
  });

  it("appends clean chunks one PATCH after another and answers a wrong offset with 409 and the stored offset", async () => {
    h = await startParcel();
    const data = randomBytes(300_000);
    const up = await createUpload(h, { chunks: data.length });
    const a = await patch(up, 0, 0, data.subarray(0, 100_000));
    expect(a.status).toBe(204);
    expect(a.headers["upload-offset"]).toBe("100000");

    const before = trafficBytes();
    const wrong = await patch(up, 0, 50_000, data.subarray(50_000, 150_000));
    expect(wrong.status).toBe(409);
    expect(wrong.headers["upload-offset"]).toBe("100000");
    const err = JSON.parse(wrong.text) as { code: string; params: { offset: number } };
    expect(err.code).toBe("upload.offset_mismatch");
    expect(err.params.offset).toBe(100_000);
    // Refused before the body was read: nothing counted.
    expect(trafficBytes()).toBe(before);

    const b = await patch(up, 0, 100_000, data.subarray(100_000, 200_000));
    expect(b.headers["upload-offset"]).toBe("200000");
    const c = await patch(up, 0, 200_000, data.subarray(200_000));
    expect(c.status).toBe(204);
    expect(c.headers["upload-offset"]).toBe(String(data.length));
    const file = stored(up, 0);
    expect(file.sha256).toBe(sha256(data));
    expect(file.bytes.equals(data)).toBe(true);
    expect(trafficBytes()).toBe(data.length);
  });

  it("refuses a wrong content type (415), a missing offset (400) and a body past the size (413)", async () => {
    h = await startParcel();
    const up = await createUpload(h, { f: 1000 });
    const body = Buffer.alloc(500, 1);
    const type = await patch(up, 0, 0, body, { contentType: "application/octet-stream" });
    expect(type.status).toBe(415);
    expect(JSON.parse(type.text).code).toBe("upload.content_type");
    const none = await patch(up, 0, undefined, body);
    expect(none.status).toBe(400);
    expect(JSON.parse(none.text).code).toBe("upload.offset_invalid");
    const bad = await patch(up, 0, "-1", body);
    expect(bad.status).toBe(400);
    const long = await patch(up, 0, 0, Buffer.alloc(1001, 1));
    expect(long.status).toBe(413);
    expect(JSON.parse(long.text).code).toBe("upload.too_long");
    expect(trafficBytes()).toBe(0);
    expect(stored(up, 0).state).toBe("pending");
    expect((await head(up, 0)).headers["upload-offset"]).toBe("0");
  });

  it("refuses another tus version with 412 and Tus-Version, and takes a request without one as 1.0.0", async () => {
    h = await startParcel();
    const up = await createUpload(h, { f: 1000 });
    const body = Buffer.alloc(400, 3);
    const other = await patch(up, 0, 0, body, { tus: "0.2.2" });
    expect(other.status).toBe(412);
    expect(other.headers["tus-version"]).toBe("1.0.0");
    expect(JSON.parse(other.text)).toMatchObject({
      code: "upload.tus_version",
      params: { version: "0.2.2" },
    });
    const otherHead = await h.request("HEAD", filePath(up, 0), {
      headers: { ...bearer(up.manage_token), "tus-resumable": "2.0.0" },
    });
    expect(otherHead.status).toBe(412);
    expect(otherHead.headers["tus-version"]).toBe("1.0.0");
    // Nothing was stored by the refused request.
    expect((await head(up, 0)).headers["upload-offset"]).toBe("0");
    const plain = await patch(up, 0, 0, body, { tus: null });
    expect(plain.status).toBe(204);
    expect(plain.headers["upload-offset"]).toBe("400");
    expect(plain.headers["tus-resumable"]).toBe("1.0.0");
  });

  it("answers HEAD of a file stored by PUT with its size, and 404 for an unknown file", async () => {
    h = await startParcel();
    const up = await createUpload(h, { f: 2000 });
    expect((await putBytes(h, up, 0, Buffer.alloc(2000, 7))).status).toBe(200);
    const r = await head(up, 0);
    expect(r.status).toBe(200);
    expect(r.headers["upload-offset"]).toBe("2000");
    expect(r.headers["upload-length"]).toBe("2000");
    const again = await patch(up, 0, 2000, Buffer.alloc(0));
    expect(again.status).toBe(204);
    expect(again.headers["upload-offset"]).toBe("2000");
    const unknown = await h.request("HEAD", `/uploads/${up.id}/files/nope`, {
      headers: bearer(up.manage_token),
    });
    expect(unknown.status).toBe(404);
    const stranger = await h.request("HEAD", filePath(up, 0));
    expect(stranger.status).toBe(401);
  });

  it("vouches only for the start offset while a PATCH runs, and refuses a second PATCH as busy", async () => {
    h = await startParcel();
    const up = await createUpload(h, { f: 200_000 });
    expect((await patch(up, 0, 0, Buffer.alloc(50_000, 1))).status).toBe(204);
    const req = http.request({
      host: "127.0.0.1",
      port: h.port,
      method: "PATCH",
      path: `/api/v1${filePath(up, 0)}`,
      headers: {
        host: `127.0.0.1:${h.port}`,
        origin: h.origin,
        "tus-resumable": "1.0.0",
        "content-type": OFFSET_TYPE,
        "content-length": String(150_000),
        "upload-offset": "50000",
        ...bearer(up.manage_token),
      },
    });
    req.on("error", () => undefined);
    req.write(Buffer.alloc(60_000, 2));
    await waitFor(() => partSize(up, 0) >= 110_000, 10_000);
    // The part holds 110,000 bytes, but only the 50,000 synced before this PATCH are vouched for.
    expect((await head(up, 0)).headers["upload-offset"]).toBe("50000");
    const second = await patch(up, 0, 50_000, Buffer.alloc(10, 2));
    expect(second.status).toBe(409);
    expect(JSON.parse(second.text).code).toBe("upload.busy");
    req.destroy();
    await idle(up, 0);
    expect((await head(up, 0)).headers["upload-offset"]).toBe("110000");
  });

  it("drops a part once PUT has stored the whole file", async () => {
    h = await startParcel();
    const up = await createUpload(h, { f: 5000 });
    expect((await patch(up, 0, 0, Buffer.alloc(2000, 3))).status).toBe(204);
    expect(partSize(up, 0)).toBe(2000);
    const put = await putBytes(h, up, 0, Buffer.alloc(5000, 4));
    expect(put.status).toBe(200);
    expect(existsSync(partPath(up, 0))).toBe(false);
    expect((await head(up, 0)).headers["upload-offset"]).toBe("5000");
  });

  it("drops the part when the session is revoked, and answers 409 afterwards", async () => {
    h = await startParcel();
    const up = await createUpload(h, { f: 5000 });
    expect((await patch(up, 0, 0, Buffer.alloc(2000, 3))).status).toBe(204);
    expect(partSize(up, 0)).toBe(2000);
    const revoke = await h.request("POST", `/parcels/${up.id}/revoke`, {
      headers: bearer(up.manage_token),
    });
    expect(revoke.status).toBe(200);
    expect(existsSync(partPath(up, 0))).toBe(false);
    expect((await head(up, 0)).status).toBe(409);
    expect((await patch(up, 0, 2000, Buffer.alloc(10, 3))).status).toBe(409);
  });

  it("keeps the start-up rule: a restart ends the open session and removes its part", async () => {
    h = await startParcel();
    const up = await createUpload(h, { f: 5000 });
    expect((await patch(up, 0, 0, Buffer.alloc(2000, 3))).status).toBe(204);
    h = await h.restart();
    expect(existsSync(partPath(up, 0))).toBe(false);
    expect((await head(up, 0)).status).toBe(409);
  });
});
