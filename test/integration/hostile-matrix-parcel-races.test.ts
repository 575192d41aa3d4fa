import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkParcelStore } from "../helpers/fault-invariants.js";
import { HeldRequest, headsTogether, type HeldAnswer } from "../helpers/held-request.js";
import { fileState, startParcel } from "../helpers/parcel-harness.js";
import { bearer, createUpload, waitFor, type Created } from "../helpers/parcel-uploads.js";

/**
 * The hostile matrix's concurrency part: requests on one resource sent together, in both
 * orders. Whatever the timing, one writer per file; a publish never sees a file half stored; a
 * revoke stops a running upload and leaves nothing of it; the store holds only true blobs.
 */

const h = await startParcel();
afterAll(() => h.close(true));

const SIZE = 64 * 1024;
const OFFSET_TYPE = "application/offset+octet-stream";
const active = () => h.service.ctx.activity.uploadsActive;
const code = (a: HeldAnswer) => (a.body ? (JSON.parse(a.body) as { code?: string }).code : null);

type Kind = "PUT" | "PATCH";

function upload(up: Created, kind: Kind, length = SIZE): HeldRequest {
  const headers: Record<string, string> = {
    Origin: h.origin,
    Authorization: `Bearer ${up.manage_token}`,
    "Content-Length": String(length),
  };
  if (kind === "PATCH") {
    headers["Tus-Resumable"] = "1.0.0";
    headers["Content-Type"] = OFFSET_TYPE;
    headers["Upload-Offset"] = "0";
  }
  return new HeldRequest(h.port, kind, `/uploads/${up.id}/files/${up.files[0].id}`, headers);
}

const post = (path: string, up: Created) =>
  new HeldRequest(h.port, "POST", path, {
    Origin: h.origin,
    Authorization: `Bearer ${up.manage_token}`,
    "Content-Length": "0",
  });

function fileRow(up: Created) {
  return fileState(h, up.files[0].id);
}

function parcelRow(up: Created) {
  const p = h.repos.parcels.byId(up.id);
  return p && { state: p.state, reserved_bytes: p.reserved_bytes };
}

/** The store holds only true blobs and no leftover of an ended upload. */
async function storeIsTrue(): Promise<void> {
  await waitFor(() => active() === 0, 10_000);
  expect(checkParcelStore(h.dataDir, { hashContent: true }).problems).toEqual([]);
}

const pairs: Array<[Kind, Kind]> = [
  ["PATCH", "PATCH"],
  ["PUT", "PUT"],
  ["PATCH", "PUT"],
  ["PUT", "PATCH"],
];

describe("concurrent requests on one resource", () => {
  it.each(pairs)(
    "%s and %s of one file sent together: one writes, the other is busy",
    async (a, b) => {
      const up = await createUpload(h, { "one.bin": SIZE });
      const first = upload(up, a);
      const second = upload(up, b);
      await headsTogether([first, second], active);
      const bodyA = Buffer.alloc(SIZE, "A");
      const bodyB = Buffer.alloc(SIZE, "B");
      first.body(bodyA);
      second.body(bodyB);
      const answers = await Promise.all([first.answer, second.answer]);
      first.close();
      second.close();
      expect(answers.filter((r) => r.status === 409 && code(r) === "upload.busy")).toHaveLength(1);
      expect(answers.filter((r) => r.status === 200 || r.status === 204)).toHaveLength(1);
      // The file holds exactly the bytes of the one that wrote.
      const written = answers[0].status === 409 ? bodyB : bodyA;
      expect(fileRow(up)).toEqual({
        state: "ready",
        sha256: createHash("sha256").update(written).digest("hex"),
      });
      await storeIsTrue();
    },
  );

  it("publish during a PATCH: refused while the file is not stored, then published whole", async () => {
    const up = await createUpload(h, { "pub.bin": SIZE });
    const writer = upload(up, "PATCH");
    const publish = post(`/uploads/${up.id}/publish`, up);
    await headsTogether([writer, publish], active);
    writer.body(Buffer.alloc(SIZE / 2, "h"));
    const early = await publish.answer;
    publish.close();
    expect(early.status).toBe(409);
    expect(code(early)).toBe("upload.not_ready");
    writer.body(Buffer.alloc(SIZE / 2, "h"));
    expect((await writer.answer).status).toBe(204);
    writer.close();
    const again = await h.request("POST", `/uploads/${up.id}/publish`, {
      headers: bearer(up.manage_token),
    });
    expect(again.status).toBe(200);
    expect(parcelRow(up)).toEqual({ state: "published", reserved_bytes: 0 });
    await storeIsTrue();
  });

  it("revoke during a PATCH: the upload is stopped and nothing of it is kept", async () => {
    const up = await createUpload(h, { "rev.bin": SIZE });
    const writer = upload(up, "PATCH");
    const revoke = post(`/parcels/${up.id}/revoke`, up);
    await headsTogether([writer, revoke], active);
    writer.body(Buffer.alloc(SIZE / 2, "r"));
    expect((await revoke.answer).status).toBe(200);
    revoke.close();
    const stopped = await writer.answer;
    writer.close();
    // Stopped in words (409 upload.closed), or cut, never stored.
    if (stopped.status !== 0) expect(code(stopped)).toBe("upload.closed");
    await waitFor(() => active() === 0, 10_000);
    expect(fileRow(up)).toEqual({ state: "failed", sha256: null });
    expect(parcelRow(up)).toEqual({ state: "revoked", reserved_bytes: 0 });
    const part = join(h.dataDir, "parcel", "tmp", `${up.files[0].id}.resume.part`);
    expect(existsSync(part)).toBe(false);
    // The rest of the body finds the parcel closed.
    const late = await h.request("PATCH", `/uploads/${up.id}/files/${up.files[0].id}`, {
      raw: Buffer.alloc(10),
      headers: {
        ...bearer(up.manage_token),
        "content-type": OFFSET_TYPE,
        "upload-offset": "0",
      },
    });
    expect(late.status).toBe(409);
    await storeIsTrue();
  });
});
