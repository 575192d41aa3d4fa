import type { Db } from "../../db/open.js";
import type { AuditRecord } from "./audit.js";
import { prepared } from "./statements.js";

/** How many file names a parcel target carries; the rest is a count. */
const NAMES_KEPT = 2;
const FILE_NAME = "SELECT name FROM files WHERE id = ?";

/**
 * What an audit target is called by people: the file's name, or a parcel's first file
 * names and how many files it has. `null` for targets that are no file or parcel, or
 * whose rows are gone and whose record kept no name.
 */
export interface TargetName {
  files: string[];
  total: number;
}

export type NamedAuditRecord = AuditRecord & { target_name: TargetName | null };

/** The name to keep in an audit record's detail for a file that may be deleted later. */
export function fileNameOf(db: Db, fileId: string): string | undefined {
  const row = prepared(db, FILE_NAME).get(fileId) as { name: string } | undefined;
  return row?.name;
}

/**
 * Adds `target_name` to one page of records (at most 100), so the console names files and
 * parcels instead of showing their ids. A file that was deleted since is named from the
 * record's own `detail.name`, written when the event happened.
 */
export function nameAuditTargets(db: Db, records: AuditRecord[]): NamedAuditRecord[] {
  const parcelFiles = prepared(
    db,
    "SELECT name FROM files WHERE parcel_id = ? ORDER BY idx LIMIT ?",
  );
  const parcelCount = prepared(db, "SELECT COUNT(*) AS n FROM files WHERE parcel_id = ?");
  const cache = new Map<string, TargetName | null>();
  const lookup = (target: string): TargetName | null => {
    const colon = target.indexOf(":");
    const kind = target.slice(0, colon);
    const id = target.slice(colon + 1);
    if (colon < 0 || id === "") return null;
    if (kind === "file") {
      const name = fileNameOf(db, id);
      return name === undefined ? null : { files: [name], total: 1 };
    }
    if (kind === "parcel") {
      const total = (parcelCount.get(id) as { n: number }).n;
      if (total === 0) return null;
      const names = parcelFiles.all(id, NAMES_KEPT) as Array<{ name: string }>;
      return { files: names.map((r) => r.name), total };
    }
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
      name = { files: [kept], total: 1 };
    }
    return { ...r, target_name: name };
  });
}
