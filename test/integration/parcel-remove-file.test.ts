import http from "node:http";
import { PassThrough } from "node:stream";
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { auditOf, CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { adminJar } from "./parcel-pickup-support.js";
import {
  bearer,
  blobFiles,
  createUpload,
  putBytes,
  streamPut,
  tempFiles,
  waitFor,
  type Created,
} from "../helpers/parcel-uploads.js";

/**
 * DELETE /uploads/:id/files/:file: a sender leaves one file out of an open upload and sends
 * the rest; the reservation follows, a running upload of the file is stopped, and nothing it
 * wrote stays behind.
 */

let h: Harness;
afterEach(async () => h?.close(true));

const remove = (up: Created, i: number, headers = bearer(up.manage_token)) =>
  h.request("DELETE", `/uploads/${up.id}/files/${up.files[i].id}`, { headers });
const reserved = (id: string) => h.repos.parcels.byId(id)?.reserved_bytes;
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/**
 * Holds the next upload that has all its bytes in at the moment its bytes have just been put in
 * the blob store, before the file's row records them: `reached` settles there, and the upload
 * goes on to record them when `release` is called.
 */
function holdAfterPlace(): { reached: Promise<void>; release: () => void } {
  const store = h.service.ctx.storage;
  const place = store.place.bind(store);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reached!: () => void;
  const at = new Promise<void>((r) => (reached = r));
  vi.spyOn(store, "place").mockImplementationOnce(async (...args) => {
    const placed = await place(...args);
    reached();
    await gate;
    return placed;
  });
  return { reached: at, release };
}

/** What a lost race must leave: no blob row or bytes for the content, no unexpected problem. */
async function expectNothingKept(content: Buffer, fileId: string): Promise<void> {
  const sha = sha256(content);
  expect(h.repos.blobs.exists(sha)).toBe(false);
  await waitFor(() => !blobFiles(h).includes(sha), 10_000);
  expect(tempFiles(h).filter((f) => f.startsWith(fileId))).toEqual([]);
  expect(h.repos.parcels.file(fileId)).toBeUndefined();
  const problems = await h.request("GET", "/admin/errors", { jar: await adminJar(h) });
  expect(problems.json.items).toEqual([]);
}

describe("DELETE /uploads/:id/files/:file", () => {
  it("leaves one file out, releases its reservation, and the rest is published", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "keep.txt": 10, "drop.bin": 2000, "also.txt": 30 });
    expect(reserved(up.id)).toBe(2040);
    expect((await putBytes(h, up, 0, Buffer.alloc(10, 1))).status).toBe(200);
    expect(reserved(up.id)).toBe(2030);
    const r = await remove(up, 1);
    expect(r.status).toBe(200);
    expect(r.json.state).toBe("uploading");
    expect(r.json.files.map((f: { name: string }) => f.name)).toEqual(["keep.txt", "also.txt"]);
    expect(reserved(up.id)).toBe(30);
    // Its name no longer finds the parcel in the administrator's search either.
    expect(h.repos.parcels.byId(up.id)?.search_names).toEqual(
      expect.not.stringContaining("drop.bin"),
    );
    expect((await putBytes(h, up, 1, Buffer.alloc(2000))).status).toBe(404);
    expect((await putBytes(h, up, 2, Buffer.alloc(30, 3))).status).toBe(200);
    const pub = await h.request("POST", `/uploads/${up.id}/publish`, {
      headers: bearer(up.manage_token),
    });
    expect(pub.status).toBe(200);
    expect(pub.json.files).toHaveLength(2);
    const audit = auditOf(h, "upload.remove");
    expect(audit).toHaveLength(1);
    expect(audit[0].target).toBe(`file:${up.files[1].id}`);
    expect(audit[0].detail).toEqual({ name: "drop.bin", size: 2000, parcel: up.id });
  });

  it("takes a stored file out too, and refuses the last file, a published parcel and strangers", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "a.txt": 5, "b.txt": 6 });
    expect((await putBytes(h, up, 0, Buffer.alloc(5, 1))).status).toBe(200);
    expect((await remove(up, 0)).status).toBe(200);
    expect(reserved(up.id)).toBe(6);
    const last = await remove(up, 1);
    expect(last.status).toBe(409);
    expect(last.json.code).toBe("upload.last_file");
    const unknown = await h.request("DELETE", `/uploads/${up.id}/files/nope`, {
      headers: bearer(up.manage_token),
    });
    expect(unknown.status).toBe(404);
    const other = await createUpload(h, { "x.txt": 1, "y.txt": 1 });
    expect((await remove(up, 1, bearer(other.manage_token))).status).toBe(403);
    expect(
      (
        await h.request("DELETE", `/uploads/${up.id}/files/${up.files[1].id}`, {
          jar: new CookieJar(),
        })
      ).status,
    ).toBe(401);
    expect((await putBytes(h, other, 0, Buffer.alloc(1))).status).toBe(200);
    expect((await putBytes(h, other, 1, Buffer.alloc(1))).status).toBe(200);
    const pub = await h.request("POST", `/uploads/${other.id}/publish`, {
      headers: bearer(other.manage_token),
    });
    expect(pub.status).toBe(200);
    const after = await remove(other, 0);
    expect(after.status).toBe(409);
    expect(after.json.code).toBe("upload.session_ended");
  });

  it("stops a running upload of the file and leaves none of its bytes behind", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "big.bin": 1_000_000, "small.txt": 3 });
    const body = new PassThrough();
    const put = streamPut(h, `/uploads/${up.id}/files/${up.files[0].id}`, body, {
      headers: bearer(up.manage_token),
      contentLength: 1_000_000,
    });
    body.write(Buffer.alloc(400_000, 7));
    await waitFor(() => h.service.ctx.activity.uploading.has(up.files[0].id), 10_000);
    await waitFor(() => tempFiles(h).some((f) => f.includes(up.files[0].id)), 10_000);
    const r = await remove(up, 0);
    expect(r.status).toBe(200);
    const answer = await put;
    // Stopped: refused, or the connection closed before an answer.
    expect(answer.status === 0 || answer.status >= 400).toBe(true);
    body.destroy();
    await waitFor(() => !h.service.ctx.activity.uploading.has(up.files[0].id), 10_000);
    expect(tempFiles(h).filter((f) => f.includes(up.files[0].id))).toEqual([]);
    expect(h.service.ctx.activity.uploadsActive).toBe(0);
    expect(reserved(up.id)).toBe(3);
  });

  it("removes the part a resumed upload had stored", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "part.bin": 1000, "rest.txt": 2 });
    const patched = await h.request("PATCH", `/uploads/${up.id}/files/${up.files[0].id}`, {
      raw: Buffer.alloc(400, 9),
      headers: {
        ...bearer(up.manage_token),
        "tus-resumable": "1.0.0",
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
      },
    });
    expect(patched.status).toBe(204);
    expect(tempFiles(h).filter((f) => f.includes(up.files[0].id))).not.toEqual([]);
    expect((await remove(up, 0)).status).toBe(200);
    expect(tempFiles(h).filter((f) => f.includes(up.files[0].id))).toEqual([]);
  });

  it("removes the part of a resumed upload still running once it has stopped", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "live.bin": 1_000_000, "rest.txt": 2 });
    const req = http.request({
      host: "127.0.0.1",
      port: h.port,
      method: "PATCH",
      path: `/api/v1/uploads/${up.id}/files/${up.files[0].id}`,
      headers: {
        host: `127.0.0.1:${h.port}`,
        origin: h.origin,
        ...bearer(up.manage_token),
        "tus-resumable": "1.0.0",
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
        "content-length": "1000000",
      },
    });
    const answered = new Promise<number>((resolve) => {
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", () => resolve(0));
    });
    req.write(Buffer.alloc(300_000, 5));
    await waitFor(() => tempFiles(h).some((f) => f.startsWith(up.files[0].id)), 10_000);
    expect((await remove(up, 0)).status).toBe(200);
    const status = await answered;
    expect(status === 0 || status >= 400).toBe(true);
    req.destroy();
    await waitFor(() => !h.service.ctx.activity.uploading.has(up.files[0].id), 10_000);
    expect(tempFiles(h).filter((f) => f.startsWith(up.files[0].id))).toEqual([]);
  });

  it("answers a PUT whose file was removed while it was being stored 409 upload.file_removed", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "keep.txt": 3, "gone.bin": 5000 });
    const content = Buffer.alloc(5000, 0x42);
    const held = holdAfterPlace();
    const put = putBytes(h, up, 1, content);
    await held.reached;
    // Every byte is in and placed; the file is left out before its row records them.
    expect((await remove(up, 1)).status).toBe(200);
    held.release();
    const r = await put;
    expect(r.status).toBe(409);
    expect(r.json.code).toBe("upload.file_removed");
    await expectNothingKept(content, up.files[1].id);
    expect(reserved(up.id)).toBe(3);
    expect(auditOf(h, "upload.fail").map((a) => a.detail.reason)).toEqual(["file-removed"]);
  });

  it("answers a PATCH whose file was removed while it was being stored 409 upload.file_removed", async () => {
    h = await startParcel();
    const up = await createUpload(h, { "keep.txt": 3, "gone.bin": 4000 });
    const content = Buffer.alloc(4000, 0x43);
    const held = holdAfterPlace();
    const patch = h.request("PATCH", `/uploads/${up.id}/files/${up.files[1].id}`, {
      raw: content,
      headers: {
        ...bearer(up.manage_token),
        "tus-resumable": "1.0.0",
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
      },
    });
    await held.reached;
    expect((await remove(up, 1)).status).toBe(200);
    held.release();
    const r = await patch;
    expect(r.status).toBe(409);
    expect(r.json.code).toBe("upload.file_removed");
    await expectNothingKept(content, up.files[1].id);
    // The rest of the upload goes on.
    expect((await putBytes(h, up, 0, Buffer.alloc(3, 1))).status).toBe(200);
  });
});
