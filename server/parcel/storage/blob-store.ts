import {
  createReadStream,
  existsSync,
  readdirSync,
  rmSync,
  statSync,
  type ReadStream,
} from "node:fs";
import { link, open, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import {
  ensurePrivateDir,
  PRIVATE_FILE_MODE,
  tightenEntries,
  tightenTree,
  type TightenResult,
} from "../../private-files.js";
import { randomId } from "../domain/secrets.js";

/** Bytes that were to become a blob are not the size their writer counted. */
export class BlobSizeError extends Error {
  constructor(
    readonly sha256: string,
    readonly found: number,
    readonly expected: number,
  ) {
    super(`the bytes for blob ${sha256} are ${found} long on disk, not ${expected}`);
    this.name = "BlobSizeError";
  }
}

/**
 * Content-addressed file store: `blobs/<aa>/<sha256>`. Bytes are written to `tmp/`, fsynced
 * by the writer, then moved into place; identical content is stored once.
 *
 * Every directory is 0700 and every stored file 0600. At start the directories are tightened
 * at once (a 0700 `blobs/` already shuts other users out of everything below it); the modes
 * of the blob files themselves, left loose by an older version, are fixed by a background
 * pass so that a store of 100,000 blobs does not delay the start.
 */
export class BlobStore {
  readonly blobDir: string;
  readonly tmpDir: string;
  /** Blobs found wrong, moved out of `blobs/` (never served again). */
  readonly quarantineDir: string;
  /** The start-up pass over the blob files' modes (tests and logs wait on it). */
  readonly modesTightened: Promise<TightenResult>;

  constructor(root: string) {
    this.blobDir = join(root, "blobs");
    this.tmpDir = join(root, "tmp");
    this.quarantineDir = join(root, "quarantine");
    tightenEntries(this.blobDir);
    tightenEntries(this.tmpDir);
    if (existsSync(this.quarantineDir)) tightenEntries(this.quarantineDir);
    this.modesTightened = tightenTree(this.blobDir);
  }

  pathOf(sha256: string): string {
    return join(this.blobDir, sha256.slice(0, 2), sha256);
  }

  /** A fresh temporary path; `tag` (a file id) lets recovery find a session's partial data. */
  tempPath(tag: string): string {
    return join(this.tmpDir, `${tag}.${randomId(6)}.part`);
  }

  /**
   * Moves a complete, fsynced temporary file into place under its hash, once its size on disk
   * (fstat of the open file, just before the link) is `size`, the bytes its one writer counted
   * and hashed: anything else wrote to it, and it must not become the blob its hash names
   * (`BlobSizeError`). Answers "added", or "exists" when a file of that name is already stored
   * (it is left untouched, and so is the temporary file: the caller decides whether the
   * stored one can stand). A failure leaves the temporary file to the caller too.
   */
  async place(tmpPath: string, sha256: string, size: number): Promise<"added" | "exists"> {
    const dest = this.pathOf(sha256);
    ensurePrivateDir(join(this.blobDir, sha256.slice(0, 2)));
    const handle = await open(tmpPath, "r");
    try {
      const onDisk = (await handle.stat()).size;
      if (onDisk !== size) throw new BlobSizeError(sha256, onDisk, size);
      // The writer's open() mode went through the umask; the stored blob is 0600 whatever it was.
      if (process.platform !== "win32") await handle.chmod(PRIVATE_FILE_MODE);
    } finally {
      await handle.close();
    }
    try {
      // link() fails if the blob exists, which keeps an existing blob untouched.
      await link(tmpPath, dest);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return "exists";
      if (code !== "EPERM" && code !== "ENOTSUP") throw err;
      // No hard links here: rename, which would replace a blob that appeared meanwhile with
      // these same verified bytes.
      await rename(tmpPath, dest);
      return "added";
    }
    await unlink(tmpPath).catch(() => undefined);
    return "added";
  }

  /** The size of a stored blob's file, or null when there is none. */
  async sizeOf(sha256: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(sha256))).size;
    } catch {
      return null;
    }
  }

  /**
   * Moves a blob's file out of the store into `quarantine/<sha256>.<ms>`, where nothing reads
   * it (an operator may look at it; cleanup removes it later). Running readers keep their open
   * file. Returns whether there was a file to move.
   */
  async quarantine(sha256: string, atMs: number): Promise<boolean> {
    ensurePrivateDir(this.quarantineDir);
    try {
      await rename(this.pathOf(sha256), join(this.quarantineDir, `${sha256}.${atMs}`));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
  }

  /** Removes quarantined files moved there before `beforeMs`; returns the bytes freed. */
  pruneQuarantine(beforeMs: number): number {
    let bytes = 0;
    for (const name of existsSync(this.quarantineDir) ? readdirSync(this.quarantineDir) : []) {
      const at = Number(name.slice(name.lastIndexOf(".") + 1));
      if (!Number.isFinite(at) || at >= beforeMs) continue;
      const p = join(this.quarantineDir, name);
      try {
        bytes += statSync(p).size;
        rmSync(p, { force: true, recursive: true });
      } catch {
        // Gone meanwhile.
      }
    }
    return bytes;
  }

  /**
   * Removes a temporary file whose bytes are not kept (their content is stored already, or the
   * upload failed). Its name is gone when this resolves; freeing a large file's blocks takes a
   * while (about 0.1 s per 512 MiB on ext4), so a handle is held across the unlink and closed
   * in the background: the blocks are freed at that close, after the answer that waits for
   * this, instead of inside the unlink.
   */
  async discard(tmpPath: string): Promise<void> {
    const handle = process.platform === "win32" ? null : await open(tmpPath, "r").catch(() => null);
    await unlink(tmpPath).catch(() => undefined);
    if (handle) void handle.close().catch(() => undefined);
  }

  /** Removes temporary files whose name starts with `tag.` (a file id), or all with no tag. */
  clearTemp(tag?: string): number {
    let n = 0;
    for (const f of readdirSync(this.tmpDir)) {
      if (tag === undefined || f.startsWith(`${tag}.`)) {
        rmSync(join(this.tmpDir, f), { force: true });
        n++;
      }
    }
    return n;
  }

  exists(sha256: string): boolean {
    try {
      statSync(this.pathOf(sha256));
      return true;
    } catch {
      return false;
    }
  }

  /** Deletes a blob's bytes; returns the bytes freed (0 when already gone). */
  remove(sha256: string): number {
    const p = this.pathOf(sha256);
    try {
      const size = statSync(p).size;
      rmSync(p, { force: true });
      return size;
    } catch {
      return 0;
    }
  }

  /**
   * Deletes every blob file `known` (the recorded hashes under one two-letter prefix) does not
   * list: bytes a crash left between a blob's row and its file, since reclamation deletes the
   * row before the bytes and an upload links the bytes before writing the row. Only safe while
   * no upload runs, so start-up recovery calls it. Returns how many files went.
   */
  removeUnknown(known: (prefix: string) => Set<string>): number {
    let n = 0;
    for (const dir of readdirSync(this.blobDir, { withFileTypes: true })) {
      if (!dir.isDirectory()) continue;
      const keep = known(dir.name);
      for (const name of readdirSync(join(this.blobDir, dir.name))) {
        if (keep.has(name)) continue;
        rmSync(join(this.blobDir, dir.name, name), { force: true, recursive: true });
        n++;
      }
    }
    return n;
  }

  openRead(sha256: string, highWaterMark = 256 * 1024): ReadStream {
    return createReadStream(this.pathOf(sha256), { highWaterMark });
  }
}
