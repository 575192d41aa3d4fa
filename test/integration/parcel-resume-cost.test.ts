import { createHash, randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HeldRequest } from "../helpers/held-request.js";
import { fileState, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { createUpload, waitFor, type Created } from "../helpers/parcel-uploads.js";

/**
 * Resuming costs what it adds: a PATCH never makes the service read back more of the part than
 * the bytes the cut request before it added, however many requests are cut (the hash state is
 * kept at checkpoints: where each PATCH starts, at every sync, where it stops).
 */

let h: Harness;
afterEach(async () => {
  await h?.close(true);
});

const MiB = 1048576;
const OFFSET_TYPE = "application/offset+octet-stream";
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const reread = () => h.service.ctx.activity.resumeRereadBytes;
const active = () => h.service.ctx.activity.uploadsActive;
const partSize = (up: Created) => {
  try {
    return statSync(join(h.dataDir, "parcel", "tmp", `${up.files[0].id}.resume.part`)).size;
  } catch {
    return 0;
  }
};

function patch(up: Created, offset: number, length: number): HeldRequest {
  return new HeldRequest(h.port, "PATCH", `/uploads/${up.id}/files/${up.files[0].id}`, {
    Origin: h.origin,
    "Tus-Resumable": "1.0.0",
    "Content-Type": OFFSET_TYPE,
    "Upload-Offset": String(offset),
    "Content-Length": String(length),
    Authorization: `Bearer ${up.manage_token}`,
  });
}

/** A whole PATCH of `body` at `offset`; answers its status and the offset it reports. */
async function patchAll(up: Created, offset: number, body: Buffer) {
  const r = patch(up, offset, body.length);
  await r.connect();
  r.head();
  r.body(body);
  const a = await r.answer;
  r.close();
  await waitFor(() => active() === 0, 10_000);
  return { status: a.status, offset: Number(a.headers["upload-offset"]) };
}

/**
 * A PATCH that announces `length` bytes, sends `send` of them, and is reset once the service
 * has written them to the part.
 */
async function cutPatch(up: Created, offset: number, length: number, send: Buffer) {
  const r = patch(up, offset, length);
  await r.connect();
  r.head();
  await waitFor(() => active() === 1, 10_000);
  if (send.length > 0) {
    r.body(send);
    await waitFor(() => partSize(up) >= offset + send.length, 10_000);
  }
  r.reset();
  await waitFor(() => active() === 0, 10_000);
}

describe("resuming costs what it adds", () => {
  it("reads nothing back for requests cut before their body (Content-Length: 2, no body, reset)", async () => {
    h = await startParcel();
    const data = randomBytes(24 * MiB);
    const up = await createUpload(h, { big: data.length });
    expect(await patchAll(up, 0, data.subarray(0, 16 * MiB))).toEqual({
      status: 204,
      offset: 16 * MiB,
    });
    for (let i = 0; i < 10; i++) await cutPatch(up, 16 * MiB, 2, Buffer.alloc(0));
    expect(reread()).toBe(0);
    expect(await patchAll(up, 16 * MiB, data.subarray(16 * MiB))).toEqual({
      status: 204,
      offset: data.length,
    });
    expect(reread()).toBe(0);
    const row = fileState(h, up.files[0].id);
    expect(row).toEqual({ state: "ready", sha256: sha256(data) });
  });

  it("reads back at most what a cut request added, and the file is stored exactly", async () => {
    h = await startParcel();
    const data = randomBytes(48 * MiB);
    const up = await createUpload(h, { big: data.length });
    expect((await patchAll(up, 0, data.subarray(0, 4 * MiB))).status).toBe(204);
    let offset = 4 * MiB;
    // Cuts of a few bytes, of a few MiB, and of more than one sync interval (32 MiB).
    for (const added of [3, 3 * MiB, 36 * MiB]) {
      const before = reread();
      await cutPatch(up, offset, data.length - offset, data.subarray(offset, offset + added));
      offset = partSize(up);
      expect(offset).toBeGreaterThanOrEqual(4 * MiB);
      // Each cut costs its successor at most the bytes it added (here, read by the cut itself
      // or by the next request's start): nothing of what was there before it.
      const next = patch(up, offset, 0);
      await next.connect();
      next.head();
      expect((await next.answer).status).toBe(204);
      next.close();
      await waitFor(() => active() === 0, 10_000);
      expect(reread() - before).toBeLessThanOrEqual(added);
    }
    expect(await patchAll(up, offset, data.subarray(offset))).toEqual({
      status: 204,
      offset: data.length,
    });
    const row = fileState(h, up.files[0].id);
    expect(row).toEqual({ state: "ready", sha256: sha256(data) });
    const sha = sha256(data);
    const blob = join(h.dataDir, "parcel", "blobs", sha.slice(0, 2), sha);
    expect(readFileSync(blob).equals(data)).toBe(true);
  });
});
