import type { Db } from "../../db/open.js";

export interface AuditRecord {
  id: number;
  action: string;
  source: string;
  target: string;
  time: number;
  detail: Record<string, unknown>;
}

/** Prepared once per database; appends one record. */
export function auditWriter(
  db: Db,
): (
  action: string,
  source: string,
  target: string,
  time: number,
  detail: Record<string, unknown>,
) => void {
  const insert = db.prepare(
    "INSERT INTO audit (action, source, target, time, detail, size) VALUES (?, ?, ?, ?, ?, ?)",
  );
  return (action, source, target, time, detail) => {
    const json = JSON.stringify(detail);
    const size =
      Buffer.byteLength(action) +
      Buffer.byteLength(source) +
      Buffer.byteLength(target) +
      Buffer.byteLength(json) +
      8;
    insert.run(action, source, target, time, json, size);
  };
}

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
