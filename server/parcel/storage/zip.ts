import { Readable } from "node:stream";

/**
 * A streamed ZIP of stored (uncompressed) entries whose exact length is known before the
 * first byte: the CRC-32 of every entry is known in advance (kept per blob), so each local
 * header carries the final CRC and sizes and no data descriptors are needed. ZIP64 records
 * are written where a size, an offset or the entry count outgrows the classic fields.
 */
export interface ZipSource {
  /** Entry name (UTF-8; the UTF-8 flag is set). */
  name: string;
  size: number;
  crc32: number;
  /** The entry's bytes; must yield exactly `size` bytes. */
  open(): Readable | Promise<Readable>;
}

export interface ZipOptions {
  /** Modification time of every entry (ms since the epoch). */
  mtime: number;
  /** Writes ZIP64 records even where the classic fields suffice (tests use it). */
  forceZip64?: boolean;
}

export interface Zip {
  /** Exact byte length of the whole archive. */
  length: number;
  /** The archive, pulled on demand (backpressure); one stream per call. */
  stream(): Readable;
}

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const LOCAL = 30;
const CENTRAL = 46;
const END = 22;
const END64 = 56;
const LOCATOR64 = 20;
const FLAG_UTF8 = 0x0800;
/** Made by Unix (3), spec 4.5; regular file, mode 0644. */
const MADE_BY = (3 << 8) | 45;
const FILE_MODE = (0o100644 << 16) >>> 0;

interface Planned extends ZipSource {
  nameBytes: Buffer;
  offset: number;
  zip64Size: boolean;
  zip64Offset: boolean;
}

function dosTime(ms: number): { time: number; date: number } {
  const d = new Date(ms);
  const year = Math.min(2107, Math.max(1980, d.getUTCFullYear()));
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

function localHeader(e: Planned, t: { time: number; date: number }): Buffer {
  const extra = e.zip64Size ? 20 : 0;
  const b = Buffer.alloc(LOCAL + e.nameBytes.length + extra);
  b.writeUInt32LE(0x04034b50, 0);
  b.writeUInt16LE(e.zip64Size ? 45 : 20, 4);
  b.writeUInt16LE(FLAG_UTF8, 6);
  b.writeUInt16LE(0, 8); // stored
  b.writeUInt16LE(t.time, 10);
  b.writeUInt16LE(t.date, 12);
  b.writeUInt32LE(e.crc32 >>> 0, 14);
  b.writeUInt32LE(e.zip64Size ? MAX32 : e.size, 18);
  b.writeUInt32LE(e.zip64Size ? MAX32 : e.size, 22);
  b.writeUInt16LE(e.nameBytes.length, 26);
  b.writeUInt16LE(extra, 28);
  e.nameBytes.copy(b, LOCAL);
  if (e.zip64Size) {
    const x = LOCAL + e.nameBytes.length;
    b.writeUInt16LE(0x0001, x);
    b.writeUInt16LE(16, x + 2);
    b.writeBigUInt64LE(BigInt(e.size), x + 4);
    b.writeBigUInt64LE(BigInt(e.size), x + 12);
  }
  return b;
}

function centralExtraLength(e: Planned): number {
  const n = (e.zip64Size ? 16 : 0) + (e.zip64Offset ? 8 : 0);
  return n === 0 ? 0 : 4 + n;
}

function centralHeader(e: Planned, t: { time: number; date: number }): Buffer {
  const extra = centralExtraLength(e);
  const b = Buffer.alloc(CENTRAL + e.nameBytes.length + extra);
  b.writeUInt32LE(0x02014b50, 0);
  b.writeUInt16LE(MADE_BY, 4);
  b.writeUInt16LE(extra > 0 ? 45 : 20, 6);
  b.writeUInt16LE(FLAG_UTF8, 8);
  b.writeUInt16LE(0, 10);
  b.writeUInt16LE(t.time, 12);
  b.writeUInt16LE(t.date, 14);
  b.writeUInt32LE(e.crc32 >>> 0, 16);
  b.writeUInt32LE(e.zip64Size ? MAX32 : e.size, 20);
  b.writeUInt32LE(e.zip64Size ? MAX32 : e.size, 24);
  b.writeUInt16LE(e.nameBytes.length, 28);
  b.writeUInt16LE(extra, 30);
  b.writeUInt16LE(0, 32); // comment
  b.writeUInt16LE(0, 34); // disk
  b.writeUInt16LE(0, 36); // internal attributes
  b.writeUInt32LE(FILE_MODE, 38);
  b.writeUInt32LE(e.zip64Offset ? MAX32 : e.offset, 42);
  e.nameBytes.copy(b, CENTRAL);
  if (extra > 0) {
    let x = CENTRAL + e.nameBytes.length;
    b.writeUInt16LE(0x0001, x);
    b.writeUInt16LE(extra - 4, x + 2);
    x += 4;
    if (e.zip64Size) {
      b.writeBigUInt64LE(BigInt(e.size), x);
      b.writeBigUInt64LE(BigInt(e.size), x + 8);
      x += 16;
    }
    if (e.zip64Offset) b.writeBigUInt64LE(BigInt(e.offset), x);
  }
  return b;
}

function endRecords(count: number, cdOffset: number, cdSize: number, zip64: boolean): Buffer {
  const b = Buffer.alloc((zip64 ? END64 + LOCATOR64 : 0) + END);
  let x = 0;
  if (zip64) {
    const end64At = cdOffset + cdSize;
    b.writeUInt32LE(0x06064b50, 0);
    b.writeBigUInt64LE(BigInt(END64 - 12), 4);
    b.writeUInt16LE(MADE_BY, 12);
    b.writeUInt16LE(45, 14);
    b.writeUInt32LE(0, 16);
    b.writeUInt32LE(0, 20);
    b.writeBigUInt64LE(BigInt(count), 24);
    b.writeBigUInt64LE(BigInt(count), 32);
    b.writeBigUInt64LE(BigInt(cdSize), 40);
    b.writeBigUInt64LE(BigInt(cdOffset), 48);
    b.writeUInt32LE(0x07064b50, END64);
    b.writeUInt32LE(0, END64 + 4);
    b.writeBigUInt64LE(BigInt(end64At), END64 + 8);
    b.writeUInt32LE(1, END64 + 16);
    x = END64 + LOCATOR64;
  }
  b.writeUInt32LE(0x06054b50, x);
  b.writeUInt16LE(0, x + 4);
  b.writeUInt16LE(0, x + 6);
  b.writeUInt16LE(Math.min(count, MAX16), x + 8);
  b.writeUInt16LE(Math.min(count, MAX16), x + 10);
  b.writeUInt32LE(Math.min(cdSize, MAX32), x + 12);
  b.writeUInt32LE(Math.min(cdOffset, MAX32), x + 16);
  b.writeUInt16LE(0, x + 20);
  return b;
}

/** Plans the archive (offsets, ZIP64 needs, exact length) without touching any bytes. */
export function createZip(sources: ZipSource[], options: ZipOptions): Zip {
  const force = options.forceZip64 === true;
  let offset = 0;
  const planned: Planned[] = sources.map((s) => {
    if (!Number.isSafeInteger(s.size) || s.size < 0) throw new Error(`bad size for ${s.name}`);
    const nameBytes = Buffer.from(s.name, "utf8");
    if (nameBytes.length > MAX16) throw new Error(`name too long: ${s.name}`);
    const e: Planned = {
      ...s,
      nameBytes,
      offset,
      zip64Size: force || s.size >= MAX32,
      zip64Offset: force || offset >= MAX32,
    };
    offset += LOCAL + nameBytes.length + (e.zip64Size ? 20 : 0) + s.size;
    return e;
  });
  const cdOffset = offset;
  const cdSize = planned.reduce(
    (n, e) => n + CENTRAL + e.nameBytes.length + centralExtraLength(e),
    0,
  );
  const zip64 = force || planned.length >= MAX16 || cdOffset >= MAX32 || cdSize >= MAX32;
  const length = cdOffset + cdSize + (zip64 ? END64 + LOCATOR64 : 0) + END;
  const t = dosTime(options.mtime);

  async function* body(): AsyncGenerator<Buffer> {
    for (const e of planned) {
      yield localHeader(e, t);
      if (e.size === 0) continue;
      const src = await e.open();
      let n = 0;
      for await (const chunk of src as AsyncIterable<Buffer>) {
        n += chunk.length;
        if (n > e.size) throw new Error(`${e.name} is longer than ${e.size} bytes`);
        yield chunk;
      }
      if (n !== e.size) throw new Error(`${e.name} ended after ${n} of ${e.size} bytes`);
    }
    // The central directory is built in slices so a huge file list never sits in one buffer.
    let slice: Buffer[] = [];
    let sliceBytes = 0;
    for (const e of planned) {
      const h = centralHeader(e, t);
      slice.push(h);
      sliceBytes += h.length;
      if (sliceBytes >= 64 * 1024) {
        yield Buffer.concat(slice);
        slice = [];
        sliceBytes = 0;
      }
    }
    slice.push(endRecords(planned.length, cdOffset, cdSize, zip64));
    yield Buffer.concat(slice);
  }

  return { length, stream: () => Readable.from(body(), { objectMode: false }) };
}
