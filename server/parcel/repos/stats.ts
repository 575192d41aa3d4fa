import type { ParcelContext } from "../context.js";
import { PARCEL_STATES, type ParcelState } from "./parcels.js";

export interface Stats {
  parcels: { total: number; by_state: Record<ParcelState, number> };
  files: { total: number; blobs: number };
  logical_bytes: number;
  stored_bytes: number;
  reserved_bytes: number;
  budgets: {
    file_budget: number;
    files_used: number;
    data_budget_bytes: number;
    data_used_bytes: number;
    disk_free_bytes: number;
    disk_headroom_bytes: number;
  };
  concurrency: { uploads_active: number; downloads_active: number };
}

/**
 * `GET /admin/stats`. Usage follows admission's rules (domain/admission.ts
 * readUsage), so the numbers an administrator sees are the ones new uploads are judged by.
 */
export function readStats(ctx: ParcelContext): Stats {
  const { db } = ctx;
  return db.transaction(() => {
    const byState = Object.fromEntries(PARCEL_STATES.map((s) => [s, 0])) as Record<
      ParcelState,
      number
    >;
    const rows = db
      .prepare("SELECT state, COUNT(*) AS n FROM parcels GROUP BY state")
      .all() as Array<{ state: ParcelState; n: number }>;
    let total = 0;
    for (const r of rows) {
      byState[r.state] = r.n;
      total += r.n;
    }
    const files = db.prepare("SELECT COUNT(*) AS n FROM files").get() as { n: number };
    const blobs = db.prepare("SELECT COUNT(*) AS n FROM blobs").get() as { n: number };
    // One pass over the live parcels' files (covered by files_parcel_size); the same rules as
    // admission's readUsage.
    const live = db
      .prepare(
        `SELECT COUNT(*) AS files, COALESCE(SUM(f.size), 0) AS bytes
         FROM files f JOIN parcels p ON p.id = f.parcel_id
         WHERE p.state IN ('uploading','published','review')`,
      )
      .get() as { files: number; bytes: number };
    const stored = db.prepare("SELECT COALESCE(SUM(size), 0) AS n FROM blobs").get() as {
      n: number;
    };
    const reserved = db
      .prepare(
        "SELECT COALESCE(SUM(reserved_bytes), 0) AS n FROM parcels WHERE state = 'uploading'",
      )
      .get() as { n: number };
    const usage = {
      storedBytes: stored.n,
      reservedBytes: reserved.n,
      files: live.files,
      diskFree: ctx.diskFree(),
    };
    const runtime = ctx.runtime();
    return {
      parcels: { total, by_state: byState },
      files: { total: files.n, blobs: blobs.n },
      logical_bytes: live.bytes,
      stored_bytes: usage.storedBytes,
      reserved_bytes: usage.reservedBytes,
      budgets: {
        file_budget: runtime.file_budget,
        files_used: usage.files,
        data_budget_bytes: runtime.data_budget_bytes,
        data_used_bytes: usage.storedBytes,
        disk_free_bytes: usage.diskFree,
        disk_headroom_bytes: runtime.disk_headroom_bytes,
      },
      concurrency: {
        uploads_active: ctx.activity.uploadsActive,
        downloads_active: ctx.activity.downloadsActive,
      },
    };
  })();
}
