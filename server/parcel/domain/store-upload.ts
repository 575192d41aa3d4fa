import type { ParcelContext } from "../context.js";
import type { FileRow } from "../repos/parcels.js";
import { holdBlobs } from "./transfer.js";

/** What an upload's one writer received: its bytes' sha256 and CRC-32, and how many. */
export interface ReceivedBytes {
  sha256: string;
  crc32: number;
  bytes: number;
}

/**
 * Makes the bytes one upload wrote at `tmpPath` the content of `file`: they become the blob
 * their sha256 names (or are dropped when that content is already stored), and the file is
 * marked ready with its blob recorded, in one transaction. The size on disk must be the file's
 * declared size (`BlobSizeError` from the store otherwise; the temporary file stays for the
 * caller to remove). Returns false when the session ended meanwhile: then nothing refers to the
 * bytes, and ones only just added are removed again.
 */
export async function storeUpload(
  ctx: ParcelContext,
  file: FileRow,
  tmpPath: string,
  got: ReceivedBytes,
): Promise<boolean> {
  // Held like a blob being read, so background reclamation cannot delete an existing copy
  // between the dedup check and the moment this file references it.
  holdBlobs(ctx, [got.sha256], 1);
  try {
    const added = await ctx.storage.commit(tmpPath, got.sha256, file.size);
    if (ctx.repos.sessions.storeFile(file, got, ctx.now())) return true;
    if (added && !ctx.repos.blobs.exists(got.sha256)) ctx.storage.remove(got.sha256);
    return false;
  } finally {
    holdBlobs(ctx, [got.sha256], -1);
  }
}
