import type { ParcelDomain } from "./ports.js";
import type { Stats } from "../repos/stats.js";

/** `GET /admin/stats`: the stored counts with the budgets and the transfers running now. */
export function readStats(ctx: ParcelDomain): Stats {
  const stored = ctx.repos.stats();
  const runtime = ctx.runtime();
  const diskFree = ctx.diskFree();
  return {
    parcels: stored.parcels,
    files: stored.files,
    logical_bytes: stored.live.bytes,
    stored_bytes: stored.stored_bytes,
    reserved_bytes: stored.reserved_bytes,
    budgets: {
      file_budget: runtime.file_budget,
      files_used: stored.live.files,
      data_budget_bytes: runtime.data_budget_bytes,
      data_used_bytes: stored.stored_bytes,
      disk_free_bytes: diskFree,
      disk_headroom_bytes: runtime.disk_headroom_bytes,
    },
    concurrency: {
      uploads_active: ctx.activity.uploadsActive,
      downloads_active: ctx.activity.downloadsActive,
    },
  };
}
