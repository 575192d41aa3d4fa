import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkParcelStore } from "../helpers/fault-invariants.js";
import type { CookieJar, Harness } from "../helpers/parcel-harness.js";
import { createUpload, putBytes } from "../helpers/parcel-uploads.js";
import {
  adminJar,
  parcelRow,
  recipient,
  shareParcel,
  startPickup,
  type Shared,
} from "./parcel-pickup-support.js";

/**
 * A blob holds what its name says, or it is not served: a download (GET, HEAD, the ZIP) that
 * finds a stored copy of the wrong size refuses in words before any byte, returns the download,
 * moves the copy out of the store for good and tells the operator; the next upload of that
 * content stores it afresh, and the files that pointed at it work again.
 */

let h: Harness;
afterEach(async () => {
  await h?.close(true);
});

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const blobPath = (sha: string) => join(h.dataDir, "parcel", "blobs", sha.slice(0, 2), sha);
const quarantined = () => {
  const dir = join(h.dataDir, "parcel", "quarantine");
  return existsSync(dir) ? readdirSync(dir) : [];
};
const fileSha = (id: string) => h.repos.parcels.file(id)?.sha256 ?? "";
const blobRow = (sha: string) => h.repos.blobs.blob(sha);

/** Content of file i of a parcel shared with `shareParcel(…, fill)`. */
const contentOf = (p: Shared, i: number, fill = 0x61) => Buffer.alloc(p.files[i].size, fill + i);

async function problems(): Promise<Array<{ code: string; params: Record<string, unknown> }>> {
  const admin = await adminJar(h);
  const r = await h.request("GET", "/admin/errors", { jar: admin });
  expect(r.status).toBe(200);
  return r.json.items;
}

function download(jar: CookieJar, p: Shared, i: number, method = "GET") {
  return h.request(method, `/pickup/files/${p.files[i].id}/download`, { jar });
}

function expectDamaged(r: { status: number; json: unknown }, name: string): void {
  expect(r.status).toBe(410);
  expect(r.json).toMatchObject({ code: "download.damaged", params: { name } });
  expect((r.json as { error: string }).error).toContain(name);
}

describe("downloads of a damaged stored copy", () => {
  it("refuses a blob longer than recorded, returns the download and quarantines it for good", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "report.pdf": 3000, "notes.txt": 100 }, { downloads: 3 });
    const sha = fileSha(p.files[0].id);
    appendFileSync(blobPath(sha), "EVIL");
    const jar = await recipient(h, p.code);

    const r = await download(jar, p, 0);
    expectDamaged(r, "report.pdf");
    // Nothing was sent: the download is returned.
    expect(parcelRow(h, p.id).downloads_left).toBe(3);
    expect(existsSync(blobPath(sha))).toBe(false);
    expect(quarantined()).toEqual([expect.stringMatching(new RegExp(`^${sha}\\.\\d+$`))]);
    expect(blobRow(sha)?.quarantined_at).toEqual(expect.any(Number));
    expect(await problems()).toContainEqual(
      expect.objectContaining({
        code: "blob.wrong_size",
        params: { name: "report.pdf", found: 3004, expected: 3000 },
      }),
    );

    // Never served again, HEAD included; the other file still is.
    expectDamaged(await download(jar, p, 0), "report.pdf");
    // A HEAD answer has no body to say it in; its status says the same.
    expect((await download(jar, p, 0, "HEAD")).status).toBe(410);
    expectDamaged(await h.request("GET", "/pickup/archive", { jar }), "report.pdf");
    const other = await download(jar, p, 1);
    expect(other.status).toBe(200);
    expect(other.body.equals(contentOf(p, 1))).toBe(true);
    expect(parcelRow(h, p.id).downloads_left).toBe(2);
    // Stored bytes no longer count the quarantined copy.
    const stats = await h.request("GET", "/admin/stats", { jar: await adminJar(h) });
    expect(stats.json.stored_bytes).toBe(100);
    expect(checkParcelStore(h.dataDir, { hashContent: true }).problems).toEqual([]);
  });

  it("refuses a HEAD of a blob shorter than recorded, consuming nothing", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.bin": 5000 }, { downloads: 1 });
    const sha = fileSha(p.files[0].id);
    truncateSync(blobPath(sha), 4000);
    const jar = await recipient(h, p.code);
    expect((await download(jar, p, 0, "HEAD")).status).toBe(410);
    expect(parcelRow(h, p.id)).toMatchObject({ downloads_left: 1, state: "published" });
    expect(existsSync(blobPath(sha))).toBe(false);
  });

  it("refuses the ZIP of a parcel with one damaged file, returns the download and says which", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "one.txt": 700, "two.txt": 900 }, { downloads: 1 });
    const sha = fileSha(p.files[1].id);
    truncateSync(blobPath(sha), 10);
    const jar = await recipient(h, p.code);
    expectDamaged(await h.request("GET", "/pickup/archive", { jar }), "two.txt");
    // The last download was returned: the parcel is not exhausted.
    expect(parcelRow(h, p.id)).toMatchObject({ downloads_left: 1, state: "published" });
    expect(existsSync(blobPath(sha))).toBe(false);
    expect(existsSync(blobPath(fileSha(p.files[0].id)))).toBe(true);
  });

  it("treats a missing stored copy the same way", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "gone.bin": 1000 });
    const sha = fileSha(p.files[0].id);
    rmSync(blobPath(sha));
    const jar = await recipient(h, p.code);
    expectDamaged(await download(jar, p, 0), "gone.bin");
    expect(blobRow(sha)?.quarantined_at).toEqual(expect.any(Number));
    expect(await problems()).toContainEqual(
      expect.objectContaining({ code: "blob.missing", params: { name: "gone.bin" } }),
    );
  });
});

describe("an upload of quarantined content", () => {
  it("stores it afresh, and the parcel that pointed at the damaged copy works again", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "photo.jpg": 4096 });
    const content = contentOf(p, 0);
    const sha = fileSha(p.files[0].id);
    appendFileSync(blobPath(sha), "EVIL");
    const jar = await recipient(h, p.code);
    expectDamaged(await download(jar, p, 0), "photo.jpg");

    const again = await createUpload(h, { "photo-again.jpg": content.length });
    expect((await putBytes(h, again, 0, content)).status).toBe(200);
    expect(readFileSync(blobPath(sha)).equals(content)).toBe(true);
    expect(blobRow(sha)).toMatchObject({ size: content.length, quarantined_at: null });
    const healed = await download(jar, p, 0);
    expect(healed.status).toBe(200);
    expect(healed.body.equals(content)).toBe(true);
    expect(checkParcelStore(h.dataDir, { hashContent: true }).problems).toEqual([]);
  });

  it("does not deduplicate onto a stored copy of the wrong size: it moves it aside and stores the new bytes", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "setup.exe": 2048 });
    const content = contentOf(p, 0);
    const sha = sha256(content);
    appendFileSync(blobPath(sha), Buffer.alloc(1000, "EVIL"));

    const again = await createUpload(h, { "setup.exe": content.length });
    expect((await putBytes(h, again, 0, content)).status).toBe(200);
    expect(readFileSync(blobPath(sha)).equals(content)).toBe(true);
    expect(quarantined()).toHaveLength(1);
    expect(await problems()).toContainEqual(
      expect.objectContaining({
        code: "blob.wrong_size",
        params: { name: "setup.exe", found: 3048, expected: 2048 },
      }),
    );
    const jar = await recipient(h, p.code);
    const got = await download(jar, p, 0);
    expect(got.status).toBe(200);
    expect(got.body.equals(content)).toBe(true);
  });

  it("finishes at start a quarantine a crash left half done (marked, not yet moved)", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "half.bin": 300 });
    const sha = fileSha(p.files[0].id);
    expect(h.repos.blobs.quarantine(sha, 1)).toBe(true);
    h = await h.restart();
    expect(existsSync(blobPath(sha))).toBe(false);
    expect(quarantined()).toHaveLength(1);
    const jar = await recipient(h, p.code);
    expectDamaged(await download(jar, p, 0), "half.bin");
    expect(parcelRow(h, p.id).downloads_left).toBe(10);
  });
});
