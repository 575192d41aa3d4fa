import type Database from "better-sqlite3";
import type { Db } from "../../db/open.js";

export type Statement = Database.Statement;

const caches = new WeakMap<Db, Map<string, Statement>>();

/**
 * The prepared statement for `sql` on `db`, prepared the first time it is asked for and kept
 * for the database's life. Queries whose text is assembled from a filter (the admin lists)
 * come in a small fixed set of shapes, so each shape is prepared once however many requests
 * use it. Never call `.pluck()` or `.raw()` on the answer: it is shared.
 */
export function prepared(db: Db, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}
