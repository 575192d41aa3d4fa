import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { Transform } from "node:stream";
import { createGunzip, createInflateRaw, crc32 } from "node:zlib";
import { DomainError } from "../../domain-errors.js";
import { streamToFile } from "./stream-to-file.js";

/** mihomo unpacked is ~40 MB; a "binary" many times that is not one. */
export const MAX_UNPACKED_BYTES = 512 * 1024 * 1024;

function unreadable(cause?: unknown): DomainError {
  return new DomainError(
    "invalid",
    "install.unreadable",
    "The core's archive could not be unpacked",
    {
      cause,
    },
  );
}

/** Counts what is written and stops past the limit; keeps a running CRC-32 for zip entries. */
function counter(limit: number) {
  let size = 0;
  let crc = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, next) {
      size += chunk.length;
      if (size > limit) return next(unreadable(new Error("unpacked data past the limit")));
      crc = crc32(chunk, crc);
      next(null, chunk);
    },
  });
  return { stream, size: () => size, crc: () => crc };
}

/** `.gz`: one gzip stream holding the executable. */
export async function gunzipTo(archive: string, target: string, limit = MAX_UNPACKED_BYTES) {
  const count = counter(limit);
  try {
    await streamToFile([createReadStream(archive), createGunzip(), count.stream], target, 0o700);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw unreadable(err);
  }
  if (count.size() === 0) throw unreadable(new Error("the archive holds nothing"));
}

interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  compressed: number;
  size: number;
  localOffset: number;
}

/** The central directory of a zip file (no zip64: a core is far below 4 GiB). */
async function zipEntries(archive: string): Promise<ZipEntry[]> {
  const fh = await open(archive, "r");
  try {
    const { size } = await fh.stat();
    const tailSize = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailSize);
    await fh.read(tail, 0, tailSize, size - tailSize);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0 || eocd + 22 > tailSize)
      throw unreadable(new Error("no end of central directory"));
    const count = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    if (dirOffset + dirSize > size) throw unreadable(new Error("central directory out of range"));
    const dir = Buffer.alloc(dirSize);
    await fh.read(dir, 0, dirSize, dirOffset);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (p + 46 > dir.length || dir.readUInt32LE(p) !== 0x02014b50) {
        throw unreadable(new Error("bad central directory entry"));
      }
      const nameLen = dir.readUInt16LE(p + 28);
      const extraLen = dir.readUInt16LE(p + 30);
      const commentLen = dir.readUInt16LE(p + 32);
      entries.push({
        method: dir.readUInt16LE(p + 10),
        crc: dir.readUInt32LE(p + 16),
        compressed: dir.readUInt32LE(p + 20),
        size: dir.readUInt32LE(p + 24),
        localOffset: dir.readUInt32LE(p + 42),
        name: dir.toString("utf8", p + 46, p + 46 + nameLen),
      });
      p += 46 + nameLen + extraLen + commentLen;
    }
    return entries;
  } finally {
    await fh.close();
  }
}

async function localHeader(archive: string, offset: number): Promise<Buffer> {
  const fh = await open(archive, "r");
  try {
    const header = Buffer.alloc(30);
    await fh.read(header, 0, 30, offset);
    return header;
  } finally {
    await fh.close();
  }
}

/**
 * `.zip` (Windows): the one `.exe` entry, stored or deflated, checked against its CRC-32 and
 * size as it is written.
 */
export async function unzipTo(archive: string, target: string, limit = MAX_UNPACKED_BYTES) {
  let entries: ZipEntry[];
  try {
    entries = await zipEntries(archive);
  } catch (err) {
    throw err instanceof DomainError ? err : unreadable(err);
  }
  const exes = entries.filter((e) => /\.exe$/i.test(e.name) && !e.name.endsWith("/"));
  const entry = exes.length === 1 ? exes[0] : undefined;
  if (!entry || (entry.method !== 0 && entry.method !== 8) || entry.size > limit) {
    throw unreadable(new Error("no single stored or deflated .exe entry"));
  }
  const local = await localHeader(archive, entry.localOffset);
  if (local.readUInt32LE(0) !== 0x04034b50) throw unreadable(new Error("bad local header"));
  const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const count = counter(limit);
  const source = createReadStream(archive, {
    start,
    end: Math.max(start, start + entry.compressed - 1),
  });
  try {
    const steps = entry.method === 8 ? [createInflateRaw()] : [];
    await streamToFile([source, ...steps, count.stream], target, 0o700);
  } catch (err) {
    throw err instanceof DomainError ? err : unreadable(err);
  }
  if (count.size() !== entry.size || count.crc() >>> 0 !== entry.crc >>> 0) {
    throw unreadable(new Error("the entry's size or CRC-32 does not match"));
  }
}
