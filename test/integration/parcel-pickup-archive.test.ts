import { execFileSync } from "node:child_process";
import { unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../helpers/parcel-harness.js";
import { waitFor } from "../helpers/parcel-uploads.js";
import {
  auditRows,
  parcelRow,
  recipient,
  shareParcel,
  startPickup,
} from "./parcel-pickup-support.js";

let h: Harness;
afterEach(async () => h?.close(true));

const DAY = 86400;
const names = ["report.pdf", "empty.txt", "Grüße 東京.txt"];

/** Unzips into a fresh directory and answers the `unzip -t` verdict and each file's bytes. */
function unpack(zip: Buffer, tag: string): { test: string; read(name: string): Buffer } {
  const file = join(h.dataDir, `${tag}.zip`);
  writeFileSync(file, zip);
  const test = execFileSync("unzip", ["-t", file], { encoding: "utf8" });
  return { test, read: (name) => execFileSync("unzip", ["-p", file, name]) };
}

describe("GET /pickup/archive", () => {
  it("sends every file as one stored ZIP with an exact length and takes one download", async () => {
    h = await startPickup();
    const p = await shareParcel(
      h,
      { [names[0]]: 300_000, [names[1]]: 0, [names[2]]: 17 },
      {
        downloads: 3,
      },
    );
    const jar = await recipient(h, p.code);
    const r = await h.request("GET", "/pickup/archive?utc_offset=0", { jar });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/octet-stream");
    const day = new Date((p.publish.json.sent_at as number) * 1000).toISOString().slice(0, 10);
    expect(r.headers["content-disposition"]).toBe(
      `attachment; filename="Parcel ${day} (3 files).zip"; filename*=UTF-8''Parcel%20${day}%20%283%20files%29.zip`,
    );
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(Number(r.headers["content-length"])).toBe(r.body.length);
    // Stored entries: the archive is the file bytes plus headers, nothing compressed.
    const headers = names.reduce((s, n) => s + 30 + 46 + 2 * Buffer.byteLength(n), 22);
    expect(r.body.length).toBe(300_000 + 17 + headers);
    const zip = unpack(r.body, "all");
    expect(zip.test).toMatch(/No errors detected/);
    expect(zip.read(names[0]).equals(Buffer.alloc(300_000, 0x61))).toBe(true);
    expect(zip.read(names[1]).length).toBe(0);
    expect(zip.read(names[2]).equals(Buffer.alloc(17, 0x63))).toBe(true);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "published", downloads_left: 2 });
    const start = auditRows(h, "download.start");
    expect(start).toMatchObject([{ target: `parcel:${p.id}` }]);
    expect(start[0].detail).toMatchObject({ archive: true, files: 3 });
    await waitFor(() => auditRows(h, "download.complete").length === 1);
  });

  it("answers HEAD with the same length and consumes nothing", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 10, "b.txt": 20 }, { downloads: 1 });
    const jar = await recipient(h, p.code);
    const head = await h.request("HEAD", "/pickup/archive", { jar });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(parcelRow(h, p.id).downloads_left).toBe(1);
    const get = await h.request("GET", "/pickup/archive", { jar });
    expect(get.status).toBe(200);
    expect(head.headers["content-length"]).toBe(String(get.body.length));
    expect(head.headers["content-disposition"]).toBe(get.headers["content-disposition"]);
  });

  it("takes the last download like a file does, then answers 410", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 10, "b.txt": 20 }, { downloads: 2 });
    const jar = await recipient(h, p.code);
    expect(
      (await h.request("GET", `/pickup/files/${p.files[0].id}/download`, { jar })).status,
    ).toBe(200);
    expect((await h.request("GET", "/pickup/archive", { jar })).status).toBe(200);
    expect(parcelRow(h, p.id)).toMatchObject({ state: "exhausted", downloads_left: 0 });
    expect((await h.request("GET", "/pickup/archive", { jar })).status).toBe(410);
    expect((await h.request("HEAD", "/pickup/archive", { jar })).status).toBe(410);
  });

  it("answers 401 without a pickup cookie", async () => {
    h = await startPickup();
    expect((await h.request("GET", "/pickup/archive")).status).toBe(401);
  });

  it("returns the download when a blob is missing before the first byte", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 10, "b.txt": 20 }, { downloads: 1 });
    const jar = await recipient(h, p.code);
    const sha = h.repos.parcels.file(p.files[1].id)?.sha256 ?? "";
    unlinkSync(h.service.ctx.storage.pathOf(sha));
    const r = await h.request("GET", "/pickup/archive", { jar });
    // A missing stored copy is a damaged one: refused in words, naming the file.
    expect(r.status).toBe(410);
    expect(r.json).toMatchObject({ code: "download.damaged", params: { name: "b.txt" } });
    expect(parcelRow(h, p.id)).toMatchObject({ state: "published", downloads_left: 1 });
  });

  it("renews the expiry when the archive completes", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 10 }, { days: 1, downloads: 2 });
    const sent = h.service.ctx.now();
    h.clock.advance((DAY / 2) * 1000);
    const jar = await recipient(h, p.code);
    expect((await h.request("GET", "/pickup/archive", { jar })).status).toBe(200);
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0);
    expect(parcelRow(h, p.id).expires_at).toBe(sent + 4 * DAY);
  });
});
