import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ZipEntryHasher } from "../../bench/zip-check.js";
import { createZip } from "../../server/parcel/storage/zip.js";

async function archive(data: Buffer, forceZip64 = false): Promise<Buffer> {
  const zip = createZip(
    [
      {
        name: "bench.bin",
        size: data.length,
        crc32: crc32(data),
        open: () => Readable.from([data]),
      },
    ],
    { mtime: Date.UTC(2026, 0, 1), forceZip64 },
  );
  const parts: Buffer[] = [];
  for await (const c of zip.stream()) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** Feeds `bytes` to a checker in pieces of `step` bytes (headers split across pieces). */
function check(bytes: Buffer, step: number): ReturnType<ZipEntryHasher["finish"]> {
  const h = new ZipEntryHasher();
  for (let i = 0; i < bytes.length; i += step) h.push(bytes.subarray(i, i + step));
  return h.finish();
}

const sha = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

describe("bench ZIP check", () => {
  it("hashes the one entry of a streamed ZIP whatever the piece boundaries", async () => {
    const data = randomBytes(100_000);
    const zip = await archive(data);
    for (const step of [1, 7, 4096, zip.length]) {
      expect(check(zip, step)).toEqual({
        name: "bench.bin",
        size: data.length,
        sha256: sha(data),
        zip64: false,
        bytes: zip.length,
      });
    }
  });

  it("reads the sizes from the ZIP64 extra field and sees the ZIP64 end records", async () => {
    const data = randomBytes(5000);
    const r = check(await archive(data, true), 13);
    expect(r).toMatchObject({ size: 5000, sha256: sha(data), zip64: true });
  });

  it("finds a changed byte in the entry", async () => {
    const data = randomBytes(2000);
    const zip = await archive(data);
    zip[zip.length - 200 - 1000] ^= 1;
    expect(check(zip, 64).sha256).not.toBe(sha(data));
  });

  it("refuses a cut archive and one that is not a ZIP", async () => {
    const zip = await archive(randomBytes(2000));
    expect(() => check(zip.subarray(0, 1000), 100)).toThrow(/before its entry did/);
    expect(() => check(zip.subarray(0, zip.length - 10), 100)).toThrow(/end-of-central/);
    expect(() => check(Buffer.from("PK but not really a zip header at all"), 8)).toThrow(
      /local header/,
    );
  });
});
