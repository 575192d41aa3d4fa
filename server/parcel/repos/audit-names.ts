import type { Db } from "../../db/open.js";
import type { AuditRecord } from "./audit-record.js";
import { MEMO_NAMES } from "./cleanup.js";
import { prepared } from "./statements.js";

/**
 * What an audit target is called by people: the file's name and size, or a parcel's first
 * file names, how many files, their size and its pickup code's last characters, also once
 * cleanup removed the parcel (from its memo, with when). `null` for targets that are no file
 * or parcel, or whose rows are gone and of which nothing was kept.
 */
export interface TargetName {
  files: string[];
  total: number;
  bytes: number | null;
  code_tail: string | null;
  removed_at: number | null;
}

export type NamedAuditRecord = AuditRecord & { target_name: TargetName | null };

const SQL = {
  parcel: "SELECT code_tail FROM parcels WHERE id = ?",
  names: "SELECT name FROM files WHERE parcel_id = ? ORDER BY idx LIMIT ?",
  sum: "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM files WHERE parcel_id = ?",
  memo: "SELECT names, files, bytes, code_tail, removed_at FROM parcel_memos WHERE id = ?",
  file: "SELECT name, size FROM files WHERE id = ?",
};

/**
 * Prepares the statements below once, when the repository is made: which of them a page needs
 * first depends on what it lists (a removed parcel's memo only once cleanup has run).
 */
export function prepareAuditNames(db: Db): void {
  for (const sql of Object.values(SQL)) prepared(db, sql);
}

/** A parcel as its row and files say, or as its memo kept it after cleanup; null if neither. */
function parcelName(db: Db, id: string): TargetName | null {
  const row = prepared(db, SQL.parcel).get(id) as { code_tail: string | null } | undefined;
  if (row) {
    const names = prepared(
      db,
      "SELECT name FROM files WHERE parcel_id = ? ORDER BY idx LIMIT ?",
    ).all(id, MEMO_NAMES) as Array<{ name: string }>;
    const sum = prepared(
      db,
      "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM files WHERE parcel_id = ?",
    ).get(id) as { n: number; bytes: number };
    return {
      files: names.map((r) => r.name),
      total: sum.n,
      bytes: sum.bytes,
      code_tail: row.code_tail,
      removed_at: null,
    };
  }
  const memo = prepared(db, SQL.memo).get(id) as
    | { names: string; files: number; bytes: number; code_tail: string | null; removed_at: number }
    | undefined;
  if (!memo) return null;
  let names: string[] = [];
  try {
    const parsed: unknown = JSON.parse(memo.names);
    if (Array.isArray(parsed)) names = parsed.filter((n): n is string => typeof n === "string");
  } catch {
    // a memo this build cannot read names nothing
  }
  return {
    files: names,
    total: memo.files,
    bytes: memo.bytes,
    code_tail: memo.code_tail,
    removed_at: memo.removed_at,
  };
}

/**
 * Adds `target_name` to one page of records (at most 100), so the console names files and
 * parcels instead of showing their ids. A file that was deleted since is named from the
 * record's own `detail.name` (and `detail.size`), written when the event happened.
 */
export function nameAuditTargets(db: Db, records: AuditRecord[]): NamedAuditRecord[] {
  const cache = new Map<string, TargetName | null>();
  const lookup = (target: string): TargetName | null => {
    const colon = target.indexOf(":");
    const kind = target.slice(0, colon);
    const id = target.slice(colon + 1);
    if (colon < 0 || id === "") return null;
    if (kind === "file") {
      const row = prepared(db, SQL.file).get(id) as { name: string; size: number } | undefined;
      return row
        ? { files: [row.name], total: 1, bytes: row.size, code_tail: null, removed_at: null }
        : null;
    }
    if (kind === "parcel") return parcelName(db, id);
    return null;
  };
  return records.map((r) => {
    let name = cache.get(r.target);
    if (name === undefined) {
      name = lookup(r.target);
      cache.set(r.target, name);
    }
    const kept = r.detail.name;
    if (name === null && r.target.startsWith("file:") && typeof kept === "string") {
      const size = r.detail.size;
      name = {
        files: [kept],
        total: 1,
        bytes: typeof size === "number" ? size : null,
        code_tail: null,
        removed_at: null,
      };
    }
    return { ...r, target_name: name };
  });
}
