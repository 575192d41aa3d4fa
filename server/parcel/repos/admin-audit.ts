import type { Db } from "../../db/open.js";
import {
  pageResult,
  resolvePage,
  type PageRequest,
  type PageResult,
} from "../../http/pagination.js";
import { cachedCount } from "./admin-audit-cache.js";
import { fragmentIndexQuery } from "./admin-audit-plan.js";
import { toAuditRecord, type AuditRecord } from "./audit.js";

export interface AuditFilter {
  action?: string;
  /** Literal fragments (no wildcards), matched case-sensitively like instr(). */
  source?: string;
  target?: string;
  /** Unix seconds, inclusive. */
  from?: number;
  to?: number;
}

type AuditRow = Parameters<typeof toAuditRecord>[0];
interface Window {
  n: number;
  lo: number | null;
  hi: number | null;
}

/** Rows, lowest and highest id matching the time part of the filter (all rows without one). */
function timeWindow(db: Db, conds: string[], params: number[]): Window {
  const where = conds.length > 0 ? `AND ${conds.join(" AND ")}` : "";
  const key = `window|${conds.join("&")}|${params.join(",")}`;
  return cachedCount<Window>(
    db,
    key,
    (after) => {
      if (conds.length === 0 && after === 0) {
        // Separate statements: MIN/MAX are single seeks, and COUNT(*) alone is a b-tree count.
        const ends = db
          .prepare("SELECT (SELECT MIN(id) FROM audit) AS lo, (SELECT MAX(id) FROM audit) AS hi")
          .get() as { lo: number | null; hi: number | null };
        const { n } = db.prepare("SELECT COUNT(*) AS n FROM audit").get() as { n: number };
        return { n, ...ends };
      }
      // Without a lower id bound the planner stays on the covering time index.
      const since = after > 0 ? "id > ?" : "1";
      return db
        .prepare(
          `SELECT COUNT(*) AS n, MIN(id) AS lo, MAX(id) AS hi FROM audit WHERE ${since} ${where}`,
        )
        .get(...(after > 0 ? [after] : []), ...params) as Window;
    },
    (a, b) => ({ n: a.n + b.n, lo: a.lo ?? b.lo, hi: b.hi ?? a.hi }),
  );
}

/**
 * `GET /admin/audit` (CONTRACT 2.3), newest first by id, built to stay fast on a log of a
 * million rows: the time filter becomes an id window (the log is appended in time order, so the
 * window is normally one dense run of ids and a page is plain id arithmetic); fragments are
 * narrowed with a trigram index (see admin-audit-plan.ts); counts are kept up to date rather than recounted
 * per page; pages past the middle are read from the oldest end.
 */
export function listAudit(db: Db, filter: AuditFilter, req: PageRequest): PageResult<AuditRecord> {
  const empty = () => pageResult<AuditRecord>([], 0, 1, req.pageSize, 1);
  const timeSql: string[] = [];
  const timeParams: number[] = [];
  if (filter.from !== undefined) {
    timeSql.push("time >= ?");
    timeParams.push(filter.from);
  }
  if (filter.to !== undefined) {
    timeSql.push("time <= ?");
    timeParams.push(filter.to);
  }
  const window = timeWindow(db, timeSql, timeParams);
  if (window.n === 0 || window.lo === null || window.hi === null) return empty();
  const { lo, hi } = window;
  // Dense: every id in [lo, hi] exists and matches the time filter, so the window replaces it.
  const dense = hi - lo + 1 === window.n;
  const sql = ["id BETWEEN ? AND ?", ...(dense ? [] : timeSql)];
  const params: Array<string | number> = [lo, hi, ...(dense ? [] : timeParams)];

  if (filter.action !== undefined) {
    sql.push("action = ?");
    params.push(filter.action);
  }
  for (const column of ["source", "target"] as const) {
    const fragment = filter[column];
    if (fragment === undefined || fragment === "") continue;
    const match = fragmentIndexQuery(db, column, fragment, window.n);
    if (match !== null) {
      // Rows holding the fragment's rarest trigrams: a superset that instr() narrows exactly.
      sql.push("id IN (SELECT rowid FROM audit_fts WHERE audit_fts MATCH ?)");
      params.push(match);
    }
    // instr() takes the fragment literally: % and _ are plain characters.
    sql.push(`instr(${column}, ?) > 0`);
    params.push(fragment);
  }

  const onlyWindow = sql.length === 1 && dense;
  const clause = sql.join(" AND ");
  const total = onlyWindow
    ? window.n
    : cachedCount(
        db,
        // The window's upper end moves as the log grows (the delta covers that), so the key names
        // the time filter itself rather than the current window.
        `total|${clause}|${params.slice(2).join("\u0000")}|${lo}|${filter.from}|${filter.to}`,
        (after) =>
          (
            db
              .prepare(`SELECT COUNT(*) AS n FROM audit WHERE ${clause} AND id > ?`)
              .get(...params, after) as { n: number }
          ).n,
        (a, b) => a + b,
      );
  if (total === 0) return empty();
  const { page, pages, offset } = resolvePage(total, req);
  const rows = Math.min(req.pageSize, total - offset);
  const columns = "id, action, source, target, time, detail";
  let list: AuditRow[];
  if (onlyWindow) {
    const top = hi - offset;
    list = db
      .prepare(`SELECT ${columns} FROM audit WHERE id BETWEEN ? AND ? ORDER BY id DESC`)
      .all(top - rows + 1, top) as AuditRow[];
  } else if (offset > total / 2) {
    list = (
      db
        .prepare(`SELECT ${columns} FROM audit WHERE ${clause} ORDER BY id ASC LIMIT ? OFFSET ?`)
        .all(...params, rows, total - offset - rows) as AuditRow[]
    ).reverse();
  } else {
    list = db
      .prepare(`SELECT ${columns} FROM audit WHERE ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .all(...params, rows, offset) as AuditRow[];
  }
  return pageResult(list.map(toAuditRecord), total, page, req.pageSize, pages);
}
