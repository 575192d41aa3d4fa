import type { ParcelContext } from "./context.js";

export interface CleanupResult {
  parcels: number;
  files: number;
  bytes: number;
}

/**
 * Cleanup (CONTRACT 2.5). `full` (POST /admin/cleanup) removes every ended record now; the
 * periodic run frees the bytes of ended parcels at once but keeps records for 24 hours.
 * Placeholder until the admin work lands.
 */
export async function runCleanup(
  _ctx: ParcelContext,
  _opts: { full: boolean },
): Promise<CleanupResult> {
  return { parcels: 0, files: 0, bytes: 0 };
}

/** Deletes blobs no live parcel references (never one a running download reads). */
export async function reclaimBlobs(_ctx: ParcelContext): Promise<number> {
  return 0;
}
