import { open, type FileHandle } from "node:fs/promises";
import { DomainError } from "../../domain-errors.js";
import { crashPoint } from "../../fault-points.js";
import type { ParcelDomain } from "./ports.js";

/** How a blob was found to be not what its name says. */
export type BlobFault =
  | { kind: "size"; found: number; expected: number }
  | { kind: "content" }
  | { kind: "missing" }
  | { kind: "unreadable" };

/**
 * Takes a blob found wrong out of service for good: its record is marked quarantined first
 * (from then on nothing serves it, and a crash before the move is finished at the next start),
 * then its file leaves `blobs/` for `quarantine/`. The operator hears of it in the recent
 * problems, naming a file whose content it was. A later upload of the same content stores it
 * afresh (domain/store-upload.ts), which also brings back the files that pointed at it.
 */
export async function quarantineBlob(
  ctx: ParcelDomain,
  sha256: string,
  fault: BlobFault,
): Promise<void> {
  const marked = ctx.repos.blobs.quarantine(sha256, ctx.now());
  crashPoint("parcel.quarantine-marked");
  await ctx.storage.quarantine(sha256, ctx.clock.now());
  // Said once, by whoever found it first (a download and a scrub may both meet it).
  if (!marked) return;
  const name = ctx.repos.blobs.files(sha256)[0]?.name ?? sha256.slice(0, 12);
  const aside = "it was moved to quarantine and is never sent again";
  if (fault.kind === "size") {
    ctx.log.warn(
      "blob.wrong_size",
      `The stored copy of ${name} held ${fault.found} bytes instead of ${fault.expected}; ${aside}`,
      { params: { name, found: fault.found, expected: fault.expected }, sha256 },
    );
  } else if (fault.kind === "content") {
    ctx.log.warn(
      "blob.wrong_content",
      `The stored copy of ${name} no longer matches its sha256; ${aside}`,
      { params: { name }, sha256 },
    );
  } else if (fault.kind === "missing") {
    ctx.log.warn("blob.missing", `The stored copy of ${name} is missing; it is never sent`, {
      params: { name },
      sha256,
    });
  } else {
    ctx.log.warn("blob.unreadable", `The stored copy of ${name} cannot be read; ${aside}`, {
      params: { name },
      sha256,
    });
  }
}

/** What a download answers when a file's stored copy is damaged (nothing was sent). */
export function damaged(name: string): DomainError {
  return new DomainError(
    "gone",
    "download.damaged",
    `The stored copy of ${name} is damaged and cannot be sent; it has to be uploaded again`,
    { params: { name } },
  );
}

/**
 * Opens a blob to send `size` bytes of it as the file `name`, only when it is a good blob of
 * exactly that size (fstat of the open file). A blob found otherwise is quarantined and the
 * download refused (`download.damaged`) before any byte.
 */
export async function openVerified(
  ctx: ParcelDomain,
  sha256: string,
  size: number,
  name: string,
): Promise<FileHandle> {
  if (ctx.repos.blobs.blob(sha256)?.quarantined_at != null) throw damaged(name);
  let handle: FileHandle;
  try {
    handle = await open(ctx.storage.pathOf(sha256), "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    await quarantineBlob(ctx, sha256, { kind: "missing" });
    throw damaged(name);
  }
  let found: number;
  try {
    found = (await handle.stat()).size;
  } catch (err) {
    await handle.close();
    throw err;
  }
  if (found === size) return handle;
  await handle.close();
  await quarantineBlob(ctx, sha256, { kind: "size", found, expected: size });
  throw damaged(name);
}

/** The same check for many blobs at once (a ZIP of a parcel), without keeping them open. */
export async function verifyAll(
  ctx: ParcelDomain,
  blobs: Array<{ sha256: string; size: number; name: string }>,
): Promise<void> {
  for (const b of blobs) {
    if (b.size === 0) continue;
    await (await openVerified(ctx, b.sha256, b.size, b.name)).close();
  }
}

/**
 * Completes quarantines a crash interrupted (the record marked, the file not yet moved), at
 * start, before any download can open the file. Returns how many files were moved.
 */
export async function finishQuarantines(ctx: ParcelDomain): Promise<number> {
  let moved = 0;
  for (const sha of ctx.repos.blobs.quarantined()) {
    if (await ctx.storage.quarantine(sha, ctx.clock.now())) moved++;
  }
  return moved;
}
