import type { ParcelState } from "../types.js";

/** `GET /admin/stats` (CONTRACT 2.3). */
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

export interface CleanupResult {
  parcels: number;
  files: number;
  bytes: number;
}

/** `GET /admin/policy`: the whole business policy. */
export interface AdminPolicy {
  uploads_enabled: boolean;
  max_files: number;
  max_file_bytes: number;
  max_parcel_bytes: number;
  default_days: number;
  max_days: number;
  default_downloads: number;
  max_downloads: number;
  require_password: boolean;
  code_length: number;
  renewal_mode: "default" | "term";
  renew_days: number;
  renew_cap_days: number;
  daily_upload_bytes: number;
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
}
