import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkParcelStore } from "../helpers/fault-invariants.js";
import { HeldRequest, type HeldAnswer } from "../helpers/held-request.js";
import { CookieJar, fileState, startParcel, type Harness } from "../helpers/parcel-harness.js";
import {
  bearer,
  createUpload,
  putBytes,
  waitFor,
  type Created,
} from "../helpers/parcel-uploads.js";

/**
 * One writer per file: two uploads of one file sent together (PATCH and PATCH, PATCH and PUT)
 * must never both write. The second is refused with 409 `upload.busy` before it reads a byte,
 * and no blob ever holds bytes other than those its name hashes.
 */

let h: Harness;
afterEach(async () => {
  await h?.close(true);
});

const OFFSET_TYPE = "application/offset+octet-stream";
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const blobPath = (sha: string) => join(h.dataDir, "parcel", "blobs", sha.slice(0, 2), sha);

function patchRequest(up: Created, offset: number, length: number): HeldRequest {
  return new HeldRequest(h.port, "PATCH", `/uploads/${up.id}/files/${up.files[0].id}`, {
    Origin: h.origin,
    "Tus-Resumable": "1.0.0",
    "Content-Type": OFFSET_TYPE,
    "Upload-Offset": String(offset),
    "Content-Length": String(length),
    Authorization: `Bearer ${up.manage_token}`,
  });
}

function putRequest(up: Created, length: number): HeldRequest {
  return new HeldRequest(h.port, "PUT", `/uploads/${up.id}/files/${up.files[0].id}`, {
    Origin: h.origin,
    "Content-Type": "application/octet-stream",
    "Content-Length": String(length),
    Authorization: `Bearer ${up.manage_token}`,
  });
}

/**
 * Sends both request heads in one go (they reach the service in the same turn of its event
 * loop), then waits until each is either refused or being received.
 */
async function bothHeads(a: HeldRequest, b: HeldRequest): Promise<void> {
  await Promise.all([a.connect(), b.connect()]);
  a.head();
  b.head();
  const answered = { a: false, b: false };
  void a.answer.then(() => (answered.a = true));
  void b.answer.then(() => (answered.b = true));
  const active = () => h.service.ctx.activity.uploadsActive;
  await waitFor(
    () => active() + Number(answered.a) + Number(answered.b) >= 2 && active() >= 1,
    10_000,
  );
}

/** The store holds only true blobs (each file hashes to its name, with its row's size). */
function expectTrueBlobs(): void {
  const report = checkParcelStore(h.dataDir, { hashContent: true });
  expect(report.problems).toEqual([]);
}

/** Publishes a second parcel holding `content` (dedup) and downloads it as a recipient. */
async function dedupDownload(content: Buffer): Promise<{ status: number; body: Buffer }> {
  const up = await createUpload(h, { "same.bin": content.length });
  expect((await putBytes(h, up, 0, content)).status).toBe(200);
  const pub = await h.request("POST", `/uploads/${up.id}/publish`, {
    headers: bearer(up.manage_token),
  });
  expect(pub.status).toBe(200);
  const recipient = new CookieJar();
  const resolved = await h.request("POST", "/pickup/resolve", {
    jar: recipient,
    body: { code: pub.json.code },
  });
  expect(resolved.status).toBe(200);
  const got = await h.request("GET", `/pickup/files/${up.files[0].id}/download`, {
    jar: recipient,
  });
  return { status: got.status, body: got.body };
}

const busy = (a: HeldAnswer) => a.status === 409 && JSON.parse(a.body).code === "upload.busy";

describe("one writer per file", () => {
  it("refuses the second of two PATCHes sent together; the blob of X holds exactly X", async () => {
    h = await startParcel();
    const evil = Buffer.alloc(999, "EVIL");
    const x = Buffer.alloc(1000, "X");
    // The race is a matter of timing on the old code; five tries make losing it unlikely.
    for (let round = 0; round < 5; round++) {
      const up = await createUpload(h, { f: 1000 });
      const b = patchRequest(up, 0, evil.length);
      const a = patchRequest(up, 0, x.length);
      await bothHeads(b, a);
      b.body(evil);
      const bAnswer = await Promise.race([b.answer, a.answer.then(() => b.answer)]);
      a.body(x);
      const aAnswer = await a.answer;
      a.close();
      b.close();

      const answers = [aAnswer, bAnswer];
      await waitFor(() => h.service.ctx.activity.uploadsActive === 0, 10_000);
      if (existsSync(blobPath(sha256(x)))) {
        const held = readFileSync(blobPath(sha256(x)));
        expect(held.length, `round ${round}: the blob of X holds ${held.length} bytes`).toBe(1000);
        expect(held.equals(x)).toBe(true);
      }
      // Exactly one of the two wrote; the other was refused before its body was read.
      expect(answers.filter(busy), `round ${round}: ${JSON.stringify(answers)}`).toHaveLength(1);
      expect(answers.filter((r) => r.status === 204)).toHaveLength(1);
      expectTrueBlobs();
    }
    const later = await dedupDownload(x);
    expect(later.status).toBe(200);
    expect(later.body.equals(x)).toBe(true);
    expectTrueBlobs();
  });

  it("refuses a PUT sent together with a PATCH of the same file (and the other way round)", async () => {
    h = await startParcel();
    for (const patchFirst of [true, false]) {
      const up = await createUpload(h, { f: 1000 });
      const content = Buffer.alloc(1000, patchFirst ? "P" : "Q");
      const p = patchRequest(up, 0, content.length);
      const u = putRequest(up, content.length);
      if (patchFirst) await bothHeads(p, u);
      else await bothHeads(u, p);
      p.body(content);
      u.body(content);
      const answers = await Promise.all([p.answer, u.answer]);
      p.close();
      u.close();
      expect(answers.filter(busy)).toHaveLength(1);
      await waitFor(() => h.service.ctx.activity.uploadsActive === 0, 10_000);
      const row = fileState(h, up.files[0].id);
      expect(row).toEqual({ state: "ready", sha256: sha256(content) });
      expectTrueBlobs();
    }
  });

  for (const method of ["PATCH", "PUT"] as const) {
    it(`never stores bytes another writer added to a ${method}'s file as the blob its writer hashed`, async () => {
      h = await startParcel();
      const up = await createUpload(h, { f: 1000 });
      const x = Buffer.alloc(1000, "X");
      const req = method === "PATCH" ? patchRequest(up, 0, x.length) : putRequest(up, x.length);
      await req.connect();
      req.head();
      req.body(x.subarray(0, 500));
      const tmp = join(h.dataDir, "parcel", "tmp");
      const part = () => readdirSync(tmp).find((n) => n.startsWith(`${up.files[0].id}.`));
      await waitFor(() => {
        const name = part();
        return name !== undefined && statSync(join(tmp, name)).size === 500;
      }, 10_000);
      // Something the claim cannot see (a stray write of an earlier writer) adds bytes.
      appendFileSync(join(tmp, part() as string), Buffer.alloc(600, "EVIL"));
      req.body(x.subarray(500));
      const answer = await req.answer;
      req.close();
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body).code).toBe("upload.store_failed");
      await waitFor(() => h.service.ctx.activity.uploadsActive === 0, 10_000);
      expect(existsSync(blobPath(sha256(x)))).toBe(false);
      expect(part()).toBeUndefined();
      const row = fileState(h, up.files[0].id);
      expect(row).toEqual({ state: "failed", sha256: null });
      expectTrueBlobs();
      // The file can be sent again in full, and then it is stored.
      expect((await putBytes(h, up, 0, x)).status).toBe(200);
      expect(readFileSync(blobPath(sha256(x))).equals(x)).toBe(true);
    });
  }
});
