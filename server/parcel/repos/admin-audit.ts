import type { Db } from "../../db/open.js";
import { pageResult, resolvePage, type PageRequest, type PageResult } from "../../paging.js";
import { cachedCount } from "./admin-audit-cache.js";
import { fragmentIndexQuery } from "./admin-audit-plan.js";
import { toAuditRecord, type AuditRecord } from "./audit-record.js";
import { prepared } from "./statements.js";
import { HOUR_S } from "../../contract/time-units.js";

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

const HOUR = HOUR_S;
const floorHour = (t: number) => t - (((t % HOUR) + HOUR) % HOUR);

/**
 * How many rows match the time filter (all rows without one), and bounds on their ids: the
 * whole hours inside come from `audit_hours`, the partial hours at the edges from the time index.
 */
function timeWindow(db: Db, from: number | undefined, to: number | undefined): Window {
  const exact = (a: number, b: number) =>
    prepared(
      db,
      "SELECT COUNT(*) AS n, MIN(id) AS lo, MAX(id) AS hi FROM audit WHERE time BETWEEN ? AND ?",
    ).get(a, b) as Window;
  const first = from === undefined ? undefined : floorHour(from);
  const last = to === undefined ? undefined : floorHour(to);
  if (from !== undefined && to !== undefined && first === last) return exact(from, to);
  const parts: Window[] = [];
  if (from !== undefined && first !== undefined) parts.push(exact(from, first + HOUR - 1));
  if (to !== undefined && last !== undefined) parts.push(exact(last, to));
  const sql = ["n > 0"];
  const params: number[] = [];
  if (first !== undefined) {
    sql.push("start > ?");
    params.push(first);
  }
  if (last !== undefined) {
    sql.push("start < ?");
    params.push(last);
  }
  parts.push(
    prepared(
      db,
      `SELECT COALESCE(SUM(n), 0) AS n, MIN(min_id) AS lo, MAX(max_id) AS hi FROM audit_hours WHERE ${sql.join(" AND ")}`,
    ).get(...params) as Window,
  );
  const los = parts.flatMap((p) => (p.lo === null ? [] : [p.lo]));
  const his = parts.flatMap((p) => (p.hi === null ? [] : [p.hi]));
  return {
    n: parts.reduce((sum, p) => sum + p.n, 0),
    lo: los.length > 0 ? Math.min(...los) : null,
    hi: his.length > 0 ? Math.max(...his) : null,
  };
}

/** The time filter as SQL conditions and their values. */
function timeConditions(filter: AuditFilter): { timeSql: string[]; timeParams: number[] } {
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
  return { timeSql, timeParams };
}

/**
 * Fragment narrowing: the trigram index yields candidate rowids in order, so when it is used
 * it drives the query (joined, not `IN (...)`, which would build and probe a temporary table).
 */
function fragmentFilters(
  db: Db,
  filter: AuditFilter,
  windowRows: number,
): { fts: string[]; fragments: string[]; fragmentParams: string[] } {
  const fts: string[] = [];
  const fragments: string[] = [];
  const fragmentParams: string[] = [];
  for (const column of ["source", "target"] as const) {
    const fragment = filter[column];
    if (fragment === undefined || fragment === "") continue;
    const match = fragmentIndexQuery(db, column, fragment, windowRows);
    if (match !== null) fts.push(match);
    // instr() takes the fragment literally (% and _ are plain characters) and makes the
    // index's superset (rows holding the rarest trigrams) exact.
    fragments.push(`instr(a.${column}, ?) > 0`);
    fragmentParams.push(fragment);
  }
  return { fts, fragments, fragmentParams };
}

/**
 * `GET /admin/audit`, newest first by id, built to stay fast on a log of a
 * million rows: the time filter becomes an id window counted from hourly totals (the log is
 * appended in time order, so the window is normally one dense run of ids and a page is plain id
 * arithmetic); fragments are
 * narrowed with a trigram index (see admin-audit-plan.ts); counts are kept up to date rather than recounted
 * per page; pages past the middle are read from the oldest end.
 */
export function listAudit(db: Db, filter: AuditFilter, req: PageRequest): PageResult<AuditRecord> {
  const empty = () => pageResult<AuditRecord>([], 0, 1, req.pageSize, 1);
  const { timeSql, timeParams } = timeConditions(filter);
  const window = timeWindow(db, filter.from, filter.to);
  if (window.n === 0 || window.lo === null || window.hi === null) return empty();
  const { lo, hi } = window;
  // Every matching id lies in [lo, hi]; when there are exactly that many matches (dense), the
  // window is the exact answer for the time filter and replaces it.
  const dense = hi - lo + 1 === window.n;

  const { fts, fragments, fragmentParams } = fragmentFilters(db, filter, window.n);
  const key = fts.length > 0 ? "f0.rowid" : "a.id";
  const from =
    fts.length === 0
      ? "audit a"
      : ["audit_fts(?) AS f0 JOIN audit a ON a.id = f0.rowid"]
          .concat(
            fts.slice(1).map((_, i) => `JOIN audit_fts(?) AS f${i + 1} ON f${i + 1}.rowid = a.id`),
          )
          .join(" ");
  const sql = [`${key} BETWEEN ? AND ?`, ...(dense ? [] : timeSql.map((c) => `a.${c}`))];
  const params: Array<string | number> = [...fts, lo, hi, ...(dense ? [] : timeParams)];
  if (filter.action !== undefined) {
    sql.push("a.action = ?");
    params.push(filter.action);
  }
  sql.push(...fragments);
  params.push(...fragmentParams);

  const onlyWindow = sql.length === 1 && fts.length === 0 && dense;
  const clause = sql.join(" AND ");
  const total = onlyWindow
    ? window.n
    : cachedCount(
        db,
        // The window's upper end moves as the log grows (the delta covers that), so the key names
        // the time filter itself rather than the current window.
        [from, clause, ...fts, lo, filter.from, filter.to, filter.action, ...fragmentParams].join(
          "\u0000",
        ),
        (after) =>
          (
            prepared(db, `SELECT COUNT(*) AS n FROM ${from} WHERE ${clause} AND ${key} > ?`).get(
              ...params,
              after,
            ) as { n: number }
          ).n,
        (a, b) => a + b,
      );
  if (total === 0) return empty();
  const { page, pages, offset } = resolvePage(total, req);
  const rows = Math.min(req.pageSize, total - offset);
  const columns = "a.id, a.action, a.source, a.target, a.time, a.detail";
  const select = `SELECT ${columns} FROM ${from} WHERE ${clause}`;
  let list: AuditRow[];
  if (onlyWindow) {
    const top = hi - offset;
    list = prepared(
      db,
      `SELECT ${columns} FROM audit a WHERE a.id BETWEEN ? AND ? ORDER BY a.id DESC`,
    ).all(top - rows + 1, top) as AuditRow[];
  } else if (offset > total / 2) {
    // Past the middle, skipping from the oldest end walks fewer rows.
    list = (
      prepared(db, `${select} ORDER BY ${key} ASC LIMIT ? OFFSET ?`).all(
        ...params,
        rows,
        total - offset - rows,
      ) as AuditRow[]
    ).reverse();
  } else {
    list = prepared(db, `${select} ORDER BY ${key} DESC LIMIT ? OFFSET ?`).all(
      ...params,
      rows,
      offset,
    ) as AuditRow[];
  }
  return pageResult(list.map(toAuditRecord), total, page, req.pageSize, pages);
}
