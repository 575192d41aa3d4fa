import Database from "better-sqlite3";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type Db = Database.Database;

/** Opens (creating if needed) a SQLite database with the pragmas every service uses. */
export function openDatabase(file: string): Db {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  return db;
}

/**
 * Applies numbered SQL files (`0001-name.sql`) from `dir` that are newer than the stored
 * `user_version`, each in its own transaction. Forward-only.
 */
export function migrate(db: Db, dir: string): number {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}-[\w-]+\.sql$/.test(f))
    .sort();
  let version = db.pragma("user_version", { simple: true }) as number;
  for (const file of files) {
    const n = Number(file.slice(0, 4));
    if (n <= version) continue;
    const sql = readFileSync(join(dir, file), "utf8");
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${n}`);
    })();
    version = n;
  }
  return version;
}
