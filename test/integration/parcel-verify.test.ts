import { createHash, randomBytes } from "node:crypto";
import { existsSync, openSync, readFileSync, truncateSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkParcelStore } from "../helpers/fault-invariants.js";
import type { CookieJar, Harness } from "../helpers/parcel-harness.js";
import { createUpload, putBytes } from "../helpers/parcel-uploads.js";
import {
  adminJar,
  auditRows,
  recipient,
  shareParcel,
  startPickup,
} from "./parcel-pickup-support.js";

/**
 * The scrub: `POST /admin/verify` reads every stored blob again in the background and checks
 * its size and its sha256 against its name; a blob found wrong is quarantined and reported
 * with the files whose content it is (`GET /admin/verify`). It also runs weekly by itself.
 */

let h: Harness;
afterEach(async () => {
  await h?.close(true);
});

interface Status {
  running: boolean;
  checked: number;
  total: number;
  bad: Array<{ sha256: string; files: string[] }>;
  started_at: number | null;
  finished_at: number | null;
  found: Array<{
    sha256: string;
    reason: string;
    names: string[];
    parcels: number;
    outcome: string;
  }>;
  next_at: number;
}

const DAY = 86_400;
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const blobPath = (sha: string) => join(h.dataDir, "parcel", "blobs", sha.slice(0, 2), sha);
const fileSha = (id: string) => h.repos.parcels.file(id)?.sha256 ?? "";

async function status(admin: CookieJar): Promise<Status> {
  const r = await h.request("GET", "/admin/verify", { jar: admin });
  expect(r.status).toBe(200);
  return r.json as Status;
}

async function finished(admin: CookieJar): Promise<Status> {
  let last = await status(admin);
  const end = Date.now() + 20_000;
  while (last.running || last.finished_at === null) {
    if (Date.now() > end) throw new Error(`the check did not finish: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 20));
    last = await status(admin);
  }
  return last;
}

/** Flips one byte in the middle of a stored blob: same size, other content. */
function flipByte(path: string, at: number): void {
  const fd = openSync(path, "r+");
  try {
    const b = readFileSync(path).subarray(at, at + 1);
    writeSync(fd, Buffer.from([b[0] ^ 0xff]), 0, 1, at);
  } finally {
    closeSync(fd);
  }
}

describe("POST /admin/verify and GET /admin/verify", () => {
  it("finds a blob whose content or size is wrong, quarantines it, and names its files", async () => {
    h = await startPickup({ verifyCheckMs: 0 });
    const admin = await adminJar(h);
    const before = await status(admin);
    expect(before).toMatchObject({
      running: false,
      checked: 0,
      total: 0,
      bad: [],
      started_at: null,
      finished_at: null,
      found: [],
    });
    const good = await shareParcel(h, { "good.txt": 2000, "fine.bin": 70_000 });
    const flipped = await shareParcel(h, { "flipped.doc": 300_000 }, {}, 0x30);
    const short = await shareParcel(h, { "short.iso": 5000 }, {}, 0x40);
    // The same content in a second parcel: both files are named.
    const twin = await shareParcel(h, { "twin.doc": 300_000 }, {}, 0x30);
    const flippedSha = fileSha(flipped.files[0].id);
    const shortSha = fileSha(short.files[0].id);
    flipByte(blobPath(flippedSha), 123_456);
    truncateSync(blobPath(shortSha), 4000);

    const started = await h.request("POST", "/admin/verify", { jar: admin });
    expect(started.status).toBe(200);
    expect(started.json.started_at).toBe(h.service.ctx.now());
    const done = await finished(admin);
    expect(done).toMatchObject({ running: false, checked: 4, total: 4 });
    expect(done.finished_at).toBeGreaterThanOrEqual(done.started_at as number);
    const bad = [...done.bad].sort((a, b) => a.sha256.localeCompare(b.sha256));
    expect(bad).toEqual(
      [
        { sha256: flippedSha, files: [flipped.files[0].id, twin.files[0].id].sort() },
        { sha256: shortSha, files: [short.files[0].id] },
      ]
        .map((b) => ({ ...b, files: expect.arrayContaining(b.files) as unknown as string[] }))
        .sort((a, b) => a.sha256.localeCompare(b.sha256)),
    );
    expect(done.found).toEqual(
      expect.arrayContaining([
        {
          sha256: flippedSha,
          reason: "content",
          names: expect.arrayContaining(["flipped.doc", "twin.doc"]) as unknown as string[],
          parcels: 2,
          outcome: "quarantined",
        },
        {
          sha256: shortSha,
          reason: "size",
          names: ["short.iso"],
          parcels: 1,
          outcome: "quarantined",
        },
      ]),
    );
    expect(existsSync(blobPath(flippedSha))).toBe(false);
    expect(existsSync(blobPath(shortSha))).toBe(false);
    expect(existsSync(blobPath(fileSha(good.files[0].id)))).toBe(true);
    expect(checkParcelStore(h.dataDir, { hashContent: true }).problems).toEqual([]);
    expect(auditRows(h, "admin.verify")).toHaveLength(1);

    // Never served again; the good files still are.
    const jar = await recipient(h, flipped.code);
    const refused = await h.request("GET", `/pickup/files/${flipped.files[0].id}/download`, {
      jar,
    });
    expect(refused.status).toBe(410);
    expect(refused.json.code).toBe("download.damaged");
    const goodJar = await recipient(h, good.code);
    const ok = await h.request("GET", `/pickup/files/${good.files[1].id}/download`, {
      jar: goodJar,
    });
    expect(ok.status).toBe(200);
    const problems = (await h.request("GET", "/admin/errors", { jar: admin })).json.items as Array<{
      code: string;
    }>;
    expect(problems.map((p) => p.code)).toEqual(
      expect.arrayContaining(["blob.wrong_content", "blob.wrong_size"]),
    );

    // A new upload of the flipped file's content stores it again, and the check says so.
    const again = await createUpload(h, { "flipped.doc": 300_000 });
    expect((await putBytes(h, again, 0, Buffer.alloc(300_000, 0x30))).status).toBe(200);
    const after = await status(admin);
    expect(after.found.find((f) => f.sha256 === flippedSha)?.outcome).toBe("stored_again");
    expect(
      (await h.request("GET", `/pickup/files/${flipped.files[0].id}/download`, { jar })).status,
    ).toBe(200);
  });

  it("leaves a running check alone when asked again, and keeps the last run over a restart", async () => {
    // A slow pace: 64 pieces, each followed by a rest of at least 5 ms.
    h = await startPickup({
      verifyCheckMs: 0,
      verifyPace: { chunkBytes: 16 * 1024, rest: 1, busyRest: 1, minRestMs: 5 },
    });
    const admin = await adminJar(h);
    const big = randomBytes(1048576);
    const up = await createUpload(h, { "big.bin": big.length });
    expect((await putBytes(h, up, 0, big)).status).toBe(200);
    const first = await h.request("POST", "/admin/verify", { jar: admin });
    expect(first.json.running).toBe(true);
    const second = await h.request("POST", "/admin/verify", { jar: admin });
    expect(second.json).toMatchObject({ running: true, started_at: first.json.started_at });
    expect(auditRows(h, "admin.verify")).toHaveLength(1);
    const done = await finished(admin);
    expect(done).toMatchObject({ checked: 1, total: 1, bad: [] });
    h = await h.restart();
    const kept = await status(await adminJar(h));
    expect(kept).toEqual({ ...done, running: false });
    expect(sha256(big)).toBe(fileSha(up.files[0].id));
  });

  it("runs by itself a week after the last run", async () => {
    h = await startPickup({ verifyCheckMs: 10 });
    await shareParcel(h, { "weekly.txt": 100 });
    const first = await status(await adminJar(h));
    expect(first.started_at).toBeNull();
    expect(first.next_at).toBe(h.service.ctx.now() + 7 * DAY);
    h.clock.advance(7 * DAY * 1000 - 60_000);
    // The hourly look the service's timer makes, made here so it surely ran at this time.
    expect(h.service.ctx.verify.startIfDue()).toBe(false);
    // Days on, the administrator's session has ended: sign in again.
    expect((await status(await adminJar(h))).started_at).toBeNull();
    h.clock.advance(60_000);
    const ran = await finished(await adminJar(h));
    expect(ran).toMatchObject({ checked: 1, total: 1, bad: [] });
    expect(ran.started_at).toBe(first.next_at);
    expect(ran.next_at).toBe((ran.started_at as number) + 7 * DAY);
    // The scheduled run is the service's own: no administrator started it.
    expect(auditRows(h, "admin.verify")).toHaveLength(0);
  });

  it("is for the administrator only", async () => {
    h = await startPickup({ verifyCheckMs: 0 });
    expect((await h.request("GET", "/admin/verify")).status).toBe(401);
    expect((await h.request("POST", "/admin/verify")).status).toBe(401);
    const admin = await adminJar(h);
    const foreign = await h.request("POST", "/admin/verify", {
      jar: admin,
      headers: { origin: "http://evil.example" },
    });
    expect(foreign.status).toBe(403);
    expect((await status(admin)).started_at).toBeNull();
  });
});
