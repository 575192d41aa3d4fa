import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { crc32 } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { createZip, type ZipSource } from "../../server/parcel/storage/zip.js";

const dir = mkdtempSync(join(tmpdir(), "gatehouse-zip-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MTIME = Date.UTC(2026, 0, 2, 13, 45, 30);

function source(name: string, data: Buffer, chunk = 7): ZipSource {
  return {
    name,
    size: data.length,
    crc32: crc32(data),
    open: () =>
      Readable.from(
        Array.from({ length: Math.ceil(data.length / chunk) }, (_, i) =>
          data.subarray(i * chunk, (i + 1) * chunk),
        ),
      ),
  };
}

async function collect(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

let n = 0;
function unzip(zip: Buffer, ...args: string[]): string {
  const file = join(dir, `t${n++}.zip`);
  writeFileSync(file, zip);
  return execFileSync("unzip", [...args, file], { encoding: "utf8", maxBuffer: 64 * 1024 ** 2 });
}

interface ReadEntry {
  name: string;
  data: Buffer;
  crc: number;
  zip64: boolean;
}

/** Plain equality check: the reader runs over tens of thousands of entries. */
function eq(actual: unknown, expected: unknown): void {
  if (actual !== expected) throw new Error(`expected ${String(expected)}, got ${String(actual)}`);
}

/**
 * An independent reader: end record (and ZIP64 locator), central directory, then each local
 * header and its stored bytes; checks every CRC, size, offset and signature on the way.
 */
function readZip(zip: Buffer): { entries: ReadEntry[]; zip64End: boolean } {
  const eocd = zip.length - 22;
  eq(zip.readUInt32LE(eocd), 0x06054b50);
  let count = zip.readUInt16LE(eocd + 10);
  let cdSize = zip.readUInt32LE(eocd + 12);
  let cdOffset = zip.readUInt32LE(eocd + 16);
  const zip64End = eocd >= 20 && zip.readUInt32LE(eocd - 20) === 0x07064b50;
  if (zip64End) {
    const at = Number(zip.readBigUInt64LE(eocd - 20 + 8));
    eq(zip.readUInt32LE(at), 0x06064b50);
    eq(at + 56, eocd - 20);
    count = Number(zip.readBigUInt64LE(at + 32));
    cdSize = Number(zip.readBigUInt64LE(at + 40));
    cdOffset = Number(zip.readBigUInt64LE(at + 48));
    eq(cdOffset + cdSize, at);
  } else {
    eq(cdOffset + cdSize, eocd);
  }
  const entries: ReadEntry[] = [];
  let p = cdOffset;
  let expectedLocal = 0;
  for (let i = 0; i < count; i++) {
    eq(zip.readUInt32LE(p), 0x02014b50);
    eq(zip.readUInt16LE(p + 8) & 0x0800, 0x0800);
    eq(zip.readUInt16LE(p + 10), 0);
    const crc = zip.readUInt32LE(p + 16);
    let size = zip.readUInt32LE(p + 24);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    let offset = zip.readUInt32LE(p + 42);
    const name = zip.toString("utf8", p + 46, p + 46 + nameLen);
    let x = p + 46 + nameLen;
    const zip64 = extraLen > 0;
    if (zip64) {
      eq(zip.readUInt16LE(x), 1);
      x += 4;
      if (size === 0xffffffff) {
        size = Number(zip.readBigUInt64LE(x));
        eq(Number(zip.readBigUInt64LE(x + 8)), size);
        x += 16;
      }
      if (offset === 0xffffffff) offset = Number(zip.readBigUInt64LE(x));
    }
    eq(offset, expectedLocal);
    eq(zip.readUInt32LE(offset), 0x04034b50);
    eq(zip.readUInt32LE(offset + 14), crc);
    const lNameLen = zip.readUInt16LE(offset + 26);
    const lExtraLen = zip.readUInt16LE(offset + 28);
    eq(zip.toString("utf8", offset + 30, offset + 30 + lNameLen), name);
    const start = offset + 30 + lNameLen + lExtraLen;
    const data = zip.subarray(start, start + size);
    eq(crc32(data), crc);
    entries.push({ name, data, crc, zip64 });
    expectedLocal = start + size;
    p += 46 + nameLen + extraLen + commentLen;
  }
  eq(expectedLocal, cdOffset);
  eq(p, cdOffset + cdSize);
  return { entries, zip64End };
}

const files: Array<[string, Buffer]> = [
  ["hello.txt", Buffer.from("hello, world\n")],
  ["empty.bin", Buffer.alloc(0)],
  ["Grüße 東京 🎉.txt", Buffer.from("unicode name")],
  ["random.bin", Buffer.from(Array.from({ length: 70_001 }, (_, i) => (i * 7919) % 251))],
];

describe("createZip", () => {
  it("streams exactly the announced length, and unzip -t accepts it", async () => {
    const zip = createZip(
      files.map(([name, data]) => source(name, data, 1000)),
      { mtime: MTIME },
    );
    const bytes = await collect(zip.stream());
    expect(bytes.length).toBe(zip.length);
    expect(unzip(bytes, "-t")).toMatch(/No errors detected/);
    const listed = unzip(bytes, "-Z1").trim().split("\n");
    expect(listed).toEqual(files.map(([name]) => name));
    expect(unzip(bytes, "-Z", "-l")).toContain("26-Jan-02 13:45");
    for (const [name, data] of files) {
      const out = execFileSync("unzip", ["-p", join(dir, `t${n - 1}.zip`), name]);
      expect(out.equals(data)).toBe(true);
    }
  });

  it("is stored, not compressed, and reads back with an independent reader", async () => {
    const zip = createZip(
      files.map(([name, data]) => source(name, data)),
      { mtime: MTIME },
    );
    const bytes = await collect(zip.stream());
    const read = readZip(bytes);
    expect(read.zip64End).toBe(false);
    expect(read.entries.map((e) => [e.name, e.data])).toEqual(files);
    expect(read.entries.every((e) => !e.zip64)).toBe(true);
    // Header + name per entry, the central directory and the end record: nothing else.
    const overhead = files.reduce((s, [name]) => s + 30 + 46 + 2 * Buffer.byteLength(name), 22);
    expect(zip.length).toBe(overhead + files.reduce((s, [, d]) => s + d.length, 0));
  });

  it("writes valid ZIP64 records (forced on small entries)", async () => {
    const zip = createZip(
      files.map(([name, data]) => source(name, data)),
      { mtime: MTIME, forceZip64: true },
    );
    const bytes = await collect(zip.stream());
    expect(bytes.length).toBe(zip.length);
    expect(unzip(bytes, "-t")).toMatch(/No errors detected/);
    const read = readZip(bytes);
    expect(read.zip64End).toBe(true);
    expect(read.entries.every((e) => e.zip64)).toBe(true);
    expect(read.entries.map((e) => [e.name, e.data])).toEqual(files);
  });

  it("switches to ZIP64 end records for 65,535 entries or more", async () => {
    const count = 65_600;
    const empty = Buffer.alloc(0);
    const zip = createZip(
      Array.from({ length: count }, (_, i) => source(`f${i}`, i === 7 ? Buffer.from("x") : empty)),
      { mtime: MTIME },
    );
    const bytes = await collect(zip.stream());
    expect(bytes.length).toBe(zip.length);
    expect(unzip(bytes, "-t")).toMatch(/No errors detected/);
    const read = readZip(bytes);
    expect(read.zip64End).toBe(true);
    expect(read.entries).toHaveLength(count);
    expect(read.entries[7].data.toString()).toBe("x");
  });

  it("plans ZIP64 sizes for an entry over 4 GiB without reading it", async () => {
    const size = 5 * 1024 ** 3;
    const zip = createZip(
      [{ name: "huge.bin", size, crc32: 0x12345678, open: () => Readable.from([]) }],
      { mtime: MTIME },
    );
    // local header + zip64 extra + data, central header + zip64 extra (sizes), ZIP64 end
    // record and locator (the central directory starts past 4 GiB), end record.
    expect(zip.length).toBe(30 + 8 + 20 + size + 46 + 8 + 20 + 56 + 20 + 22);
    const stream = zip.stream();
    const first = (await stream[Symbol.asyncIterator]().next()).value as Buffer;
    stream.destroy();
    expect(first.readUInt32LE(0)).toBe(0x04034b50);
    expect(first.readUInt16LE(4)).toBe(45);
    expect(first.readUInt32LE(14)).toBe(0x12345678);
    expect(first.readUInt32LE(18)).toBe(0xffffffff);
    expect(first.readUInt32LE(22)).toBe(0xffffffff);
    expect(first.readUInt16LE(28)).toBe(20);
    expect(first.readUInt16LE(38)).toBe(1);
    expect(Number(first.readBigUInt64LE(42))).toBe(size);
    expect(Number(first.readBigUInt64LE(50))).toBe(size);
  });

  it("fails the stream when a source is shorter or longer than announced", async () => {
    for (const delta of [-1, 1]) {
      const data = Buffer.from("abcdef");
      const zip = createZip([{ ...source("a.txt", data), size: data.length - delta }], {
        mtime: MTIME,
      });
      await expect(collect(zip.stream())).rejects.toThrow(/a\.txt/);
    }
  });
});
