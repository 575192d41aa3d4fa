import type { DomainError } from "../../domain-errors.js";
import { crashPoint } from "../../fault-points.js";
import type { ParcelDomain } from "./ports.js";
import type { FileRow } from "../repos/parcels.js";
import type { StoreOutcome } from "../repos/sessions.js";
import { quarantineBlob } from "./blob-integrity.js";
import { holdBlobs } from "./transfer.js";
import { fileRemoved, uploadClosed } from "./upload-errors.js";

/** What an upload's one writer received: its bytes' sha256 and CRC-32, and how many. */
export interface ReceivedBytes {
  sha256: string;
  crc32: number;
  bytes: number;
}

/**
 * Makes the bytes one upload wrote at `tmpPath` the content of `file`: they become the blob
 * their sha256 names, and the file is marked ready with its blob recorded, in one transaction.
 * The size on disk must be the file's declared size (`BlobSizeError` from the store otherwise).
 *
 * When that content is already stored the new bytes are dropped (dedup), but only onto a blob
 * that can stand: one quarantined, or whose file is not the size its name promises, is moved
 * aside and these verified bytes take its place (stored afresh). Returns `closed` when the
 * session ended meanwhile, `removed` when the file was left out of the upload meanwhile: then
 * nothing refers to the bytes, and ones only just added are removed again. The temporary file
 * is the caller's to remove on failure.
 */
export async function storeUpload(
  ctx: ParcelDomain,
  file: FileRow,
  tmpPath: string,
  got: ReceivedBytes,
): Promise<StoreOutcome> {
  const sha = got.sha256;
  // Held like a blob being read, so background reclamation cannot delete an existing copy
  // between the dedup check and the moment this file references it.
  holdBlobs(ctx, [sha], 1);
  try {
    let placed = await ctx.storage.place(tmpPath, sha, file.size);
    if (placed === "exists") {
      const quarantined = ctx.repos.blobs.blob(sha)?.quarantined_at != null;
      const found = await ctx.storage.sizeOf(sha);
      if (quarantined || found !== file.size) {
        if (!quarantined && found !== null)
          await quarantineBlob(ctx, sha, { kind: "size", found, expected: file.size });
        else await ctx.storage.quarantine(sha, ctx.clock.now());
        placed = await ctx.storage.place(tmpPath, sha, file.size);
      }
    }
    if (placed === "exists") await ctx.storage.discard(tmpPath);
    const added = placed === "added";
    if (added) crashPoint("parcel.blob-placed");
    const outcome = ctx.repos.sessions.storeFile(file, got, ctx.now());
    // Not while another upload of the same content holds them (this one's hold is the 1): it
    // found them placed and is about to refer to them.
    const othersHold = (ctx.activity.reading.get(sha) ?? 0) > 1;
    if (outcome !== "stored" && added && !othersHold && !ctx.repos.blobs.exists(sha))
      ctx.storage.remove(sha);
    return outcome;
  } finally {
    holdBlobs(ctx, [sha], -1);
  }
}

/**
 * Why an upload of `file` ends without storing it, when its session ended or its file was left
 * out of the upload under it: the reason the audit records and the refusal. `outcome` is what
 * storing said; without it (a receive that was stopped) the file's row tells.
 */
export function uploadEnded(
  ctx: ParcelDomain,
  file: FileRow,
  outcome?: Exclude<StoreOutcome, "stored">,
): { reason: "file-removed" | "session-ended"; error: DomainError } {
  const removed = outcome
    ? outcome === "removed"
    : !ctx.repos.sessions.fileOf(file.id, file.parcel_id);
  return removed
    ? { reason: "file-removed", error: fileRemoved() }
    : { reason: "session-ended", error: uploadClosed() };
}
