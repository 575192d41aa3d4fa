import type { BusinessPolicy, ParcelState } from "../types.js";

/** `GET /admin/stats`. */
export interface AdminStats {
  parcels: { total: number; by_state: Partial<Record<ParcelState, number>> };
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

/** `GET /admin/errors`: the service's last warnings and errors, newest first. */
export interface RecentProblems {
  items: Array<{
    /** Unix seconds. */
    time: number;
    level: "warn" | "error";
    /** Names the problem; the page says it in the reader's language. */
    code?: string;
    /** The values its sentence names (with `reason_code`, the error behind it). */
    params?: Record<string, string | number>;
    /** The service's English sentence (its log file's words). */
    message: string;
    request_id: string | null;
  }>;
}

export interface CleanupResult {
  parcels: number;
  files: number;
  bytes: number;
}

/** `GET /admin/policy`: the whole business policy. */
export interface AdminPolicy extends BusinessPolicy {
  password_attempts: number;
  pickup_failures_per_ip: number;
}

/** `GET /admin/runtime`. */
export interface AdminRuntime {
  file_budget: number;
  data_budget_bytes: number;
  disk_headroom_bytes: number;
  audit_retention_days: number;
  audit_retention_rows: number;
  audit_content_budget_bytes: number;
}

export interface AuditRecord {
  id: number;
  action: string;
  source: string;
  target: string;
  time: number;
  detail: Record<string, unknown>;
  /** The file's or parcel's names, when the service still knows them. */
  target_name: { files: string[]; total: number } | null;
}
