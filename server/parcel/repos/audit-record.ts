// One audit record as the pages read it, from its row; apart from audit.ts so that the
// administrator's list (admin-audit.ts) and the audit repository need not import each other.

import type { AuditRecord as AuditRecordView } from "../../contract/parcel-admin.js";

/** A record before its target is named (audit-names.ts adds `target_name`). */
export type AuditRecord = Omit<AuditRecordView, "target_name">;

export function toAuditRecord(row: {
  id: number;
  action: string;
  source: string;
  target: string;
  time: number;
  detail: string;
}): AuditRecord {
  let detail: Record<string, unknown> = {};
  try {
    detail = JSON.parse(row.detail) as Record<string, unknown>;
  } catch {
    detail = {};
  }
  return {
    id: row.id,
    action: row.action,
    source: row.source,
    target: row.target,
    time: row.time,
    detail,
  };
}
