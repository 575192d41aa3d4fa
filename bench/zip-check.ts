import { createHash, type Hash } from "node:crypto";

/**
 * Checks a streamed ZIP holding one stored entry without keeping it: hashes the entry's
 * bytes as they pass (sha256, compared with the source's by the caller) and keeps only the
 * headers and the records after the data, so an 8 GiB archive costs a few KiB of memory.
 */
export interface ZipEntryDigest {
  name: string;
  size: number;
  sha256: string;
  /** The archive ends with a ZIP64 end-of-central-directory record (and its locator). */
  zip64: boolean;
  /** Total bytes of the archive seen. */
  bytes: number;
}

const LOCAL_SIG = 0x04034b50;
const END64_SIG = 0x06064b50;
const LOCATOR64_SIG = 0x07064b50;
const END_SIG = 0x06054b50;
/** The records after the data of one entry are a few hundred bytes; more is not a one-entry ZIP. */
const MAX_TAIL = 65536;

export class ZipEntryHasher {
  private head: Buffer[] = [];
  private headBytes = 0;
  private entry: { name: string; size: number } | null = null;
  private left = 0;
  private hash: Hash = createHash("sha256");
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (!this.entry) {
      this.head.push(rest);
      this.headBytes += rest.length;
      const parsed = this.parseHeader();
      if (!parsed) return;
      rest = parsed;
    }
    if (this.left > 0) {
      const n = Math.min(this.left, rest.length);
      this.hash.update(n === rest.length ? rest : rest.subarray(0, n));
      this.left -= n;
      rest = rest.subarray(n);
    }
    if (rest.length > 0) {
      this.tailBytes += rest.length;
      if (this.tailBytes > MAX_TAIL)
        throw new Error("more than one entry's records after the data");
      this.tail.push(Buffer.from(rest));
    }
  }

  /** The bytes after the local header, once the header is complete; null until then. */
  private parseHeader(): Buffer | null {
    const b = Buffer.concat(this.head);
    if (b.length < 30) return null;
    if (b.readUInt32LE(0) !== LOCAL_SIG)
      throw new Error("the archive does not start with a ZIP local header");
    if (b.readUInt16LE(8) !== 0)
      throw new Error("the entry is compressed; a stored entry was expected");
    const nameLen = b.readUInt16LE(26);
    const extraLen = b.readUInt16LE(28);
    const end = 30 + nameLen + extraLen;
    if (b.length < end) return null;
    let size = b.readUInt32LE(22);
    if (size === 0xffffffff) {
      // ZIP64: the real sizes are in the extra field with header id 1.
      let x = 30 + nameLen;
      while (x + 4 <= end) {
        const id = b.readUInt16LE(x);
        const len = b.readUInt16LE(x + 2);
        if (id === 0x0001) {
          size = Number(b.readBigUInt64LE(x + 4));
          break;
        }
        x += 4 + len;
      }
      if (size === 0xffffffff) throw new Error("ZIP64 sizes were announced but not written");
    }
    this.entry = { name: b.subarray(30, 30 + nameLen).toString("utf8"), size };
    this.left = size;
    this.head = [];
    return b.subarray(end);
  }

  finish(): ZipEntryDigest {
    if (!this.entry) throw new Error("the archive ended inside its first header");
    if (this.left > 0) throw new Error(`the archive ended ${this.left} bytes before its entry did`);
    const tail = Buffer.concat(this.tail);
    if (tail.length < 22 || tail.readUInt32LE(tail.length - 22) !== END_SIG)
      throw new Error("the archive has no end-of-central-directory record");
    const locator = tail.length - 22 - 20;
    const zip64 =
      locator >= 56 &&
      tail.readUInt32LE(locator) === LOCATOR64_SIG &&
      tail.readUInt32LE(locator - 56) === END64_SIG;
    return {
      name: this.entry.name,
      size: this.entry.size,
      sha256: this.hash.digest("hex"),
      zip64,
      bytes: this.total,
    };
  }
}
