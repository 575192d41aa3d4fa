import { randomBytes } from "node:crypto";
import { link, lstat, mkdir, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { numberedName, safeFileName } from "./file-names.js";

/**
 * Writes a received file into the operator's folder so that it is never seen half-written and
 * never overwrites anything: the bytes go to a temporary file in the same folder, are synced
 * to disk, and only then get their name. The name is claimed with a hard link, which fails
 * when the name exists, so two deliveries of `photo.jpg` at once become `photo.jpg` and
 * `photo (1).jpg` whatever their timing. File systems without hard links (FAT and exFAT
 * drives, some network shares) get a rename after a check for the name instead.
 */

const PART = /^\.gatehouse-[0-9a-f]{16}\.part$/;
/** link(2) is not supported here: the file system has no hard links. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK"]);
const MAX_TRIES = 10_000;

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code ?? "";

/** Syncs the folder's entry list (the new name); Windows cannot open a folder and needs none. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const fh = await open(folder, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Not supported on this platform: the rename itself is what counts there.
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    if (codeOf(err) === "ENOENT") return false;
    throw err;
  }
}

/** Gives the synced temporary file the first free name of `name`'s series; answers the path. */
async function claimName(folder: string, temp: string, name: string): Promise<string> {
  let links = true;
  for (let n = 0; n < MAX_TRIES; n++) {
    const target = join(folder, numberedName(name, n));
    if (links) {
      try {
        await link(temp, target);
        return target;
      } catch (err) {
        if (codeOf(err) === "EEXIST") continue;
        if (!NO_LINKS.has(codeOf(err))) throw err;
        links = false;
      }
    }
    if (await exists(target)) continue;
    await rename(temp, target);
    return target;
  }
  throw new Error(`no free name for ${name} in ${folder}`);
}

/**
 * Saves `chunks` as `name` (made safe for the disk) in `folder`, created if missing; answers
 * the path it got. `size`, when given, must be exactly what arrived, or nothing is kept.
 */
export async function saveAtomically(
  folder: string,
  name: string,
  chunks: AsyncIterable<Uint8Array>,
  size?: number,
): Promise<string> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temp = join(folder, `.gatehouse-${randomBytes(8).toString("hex")}.part`);
  const fh = await open(temp, "wx", 0o600);
  let written = 0;
  try {
    for await (const chunk of chunks) {
      let done = 0;
      while (done < chunk.length) {
        const { bytesWritten } = await fh.write(chunk, done, chunk.length - done);
        done += bytesWritten;
      }
      written += chunk.length;
    }
    if (size !== undefined && written !== size)
      throw new Error(`received ${written} of ${size} bytes of ${name}`);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  try {
    const path = await claimName(folder, temp, safeFileName(name));
    await syncFolder(folder);
    return path;
  } finally {
    // After a link the temporary name goes; after a rename it is already gone.
    await unlink(temp).catch(() => undefined);
  }
}

/** Removes temporary files a crash left in the folder; answers how many. */
export async function removeStaleParts(folder: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names.filter((n) => PART.test(n))) {
    await unlink(join(folder, name)).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}
