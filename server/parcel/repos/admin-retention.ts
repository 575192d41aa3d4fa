import { DAY_S } from "../../contract/time-units.js";
import type { Db } from "../../db/open.js";
import { invalidateAuditCounts } from "./admin-audit-cache.js";
import { prepared } from "./statements.js";

// About 30 ms of work per batch on a large log (each row also leaves the trigram index).
const BATCH = 1000;
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Deletes, in batches with a turn for the event loop between them, the rows `pick` selects. */
async function deleteInBatches(db: Db, pick: string, ...args: number[]): Promise<number> {
  const del = prepared(db, `DELETE FROM audit WHERE id IN (${pick} LIMIT ${BATCH})`);
  let total = 0;
  for (;;) {
    const n = del.run(...args).changes;
    if (n > 0) invalidateAuditCounts(db);
    total += n;
    if (n < BATCH) return total;
    await yieldTurn();
  }
}

/** The runtime settings that bound the audit log. */
export interface AuditRetention {
  audit_retention_days: number;
  audit_retention_rows: number;
  audit_content_budget_bytes: number;
}

/**
 * Audit retention (runtime settings): records older than `audit_retention_days`, beyond the
 * newest `audit_retention_rows`, and beyond `audit_content_budget_bytes` of content (by the
 * `size` column), oldest first. Returns the number of records removed.
 */
export async function pruneAudit(db: Db, rt: AuditRetention, now: number): Promise<number> {
  let removed = await deleteInBatches(
    db,
    "SELECT id FROM audit WHERE time < ?",
    now - rt.audit_retention_days * DAY_S,
  );
  const keepFrom = prepared(db, "SELECT id FROM audit ORDER BY id DESC LIMIT 1 OFFSET ?").get(
    rt.audit_retention_rows - 1,
  ) as { id: number } | undefined;
  if (keepFrom) {
    removed += await deleteInBatches(db, "SELECT id FROM audit WHERE id < ?", keepFrom.id);
  }
  const { total } = prepared(db, "SELECT COALESCE(SUM(size), 0) AS total FROM audit").get() as {
    total: number;
  };
  if (total > rt.audit_content_budget_bytes) {
    // Walk from the oldest record until enough content is dropped.
    let excess = total - rt.audit_content_budget_bytes;
    let cut: number | null = null;
    for (const row of prepared(db, "SELECT id, size FROM audit ORDER BY id").iterate() as Iterable<{
      id: number;
      size: number;
    }>) {
      excess -= row.size;
      cut = row.id;
      if (excess <= 0) break;
    }
    if (cut !== null) {
      removed += await deleteInBatches(db, "SELECT id FROM audit WHERE id <= ?", cut);
    }
  }
  if (removed > 0) repairHours(db);
  // A memo of a removed parcel is kept while a record could still name it: records about a
  // parcel are all older than its removal.
  prepared(
    db,
    "DELETE FROM parcel_memos WHERE removed_at < COALESCE((SELECT MIN(time) FROM audit), ?)",
  ).run(now);
  return removed;
}

/**
 * Pruning leaves the id bounds of a partly pruned hour loose (and empty hours behind); the
 * audit query then takes a slower path, so the oldest hour's bounds are recomputed.
 */
function repairHours(db: Db): void {
  db.transaction(() => {
    prepared(db, "DELETE FROM audit_hours WHERE n <= 0").run();
    prepared(
      db,
      `UPDATE audit_hours SET
         min_id = (SELECT MIN(id) FROM audit WHERE time BETWEEN start AND start + 3599),
         max_id = (SELECT MAX(id) FROM audit WHERE time BETWEEN start AND start + 3599)
       WHERE start = (SELECT MIN(start) FROM audit_hours)`,
    ).run();
  })();
}
