import type { Db } from "../../db/open.js";
import type { PageRequest, PageResult } from "../../paging.js";
import { listAudit, type AuditFilter } from "./admin-audit.js";
import { pruneAudit, type AuditRetention } from "./admin-retention.js";
import { nameAuditTargets, prepareAuditNames, type NamedAuditRecord } from "./audit-names.js";

export type { AuditRecord } from "./audit-record.js";

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

/** The audit log: appending records, the administrator's pages of it, and retention. */
export class AuditRepo {
  /** Appends one record. */
  readonly write: ReturnType<typeof auditWriter>;

  constructor(private readonly db: Db) {
    this.write = auditWriter(db);
    prepareAuditNames(db);
  }

  /** One page of records, newest first, each with the name of its target. */
  page(filter: AuditFilter, req: PageRequest): PageResult<NamedAuditRecord> {
    return this.db.transaction(() => {
      const list = listAudit(this.db, filter, req);
      return { ...list, items: nameAuditTargets(this.db, list.items) };
    })();
  }

  /** Applies the retention settings; returns the number of records removed. */
  prune(retention: AuditRetention, now: number): Promise<number> {
    return pruneAudit(this.db, retention, now);
  }
}
