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

const MIGRATION_NAME = /^(\d{4})-[\w-]+\.sql$/;
const WHEN = /^--\s*migrate:when\s+(\S.*)$/;
const END = /^--\s*migrate:end\s*$/;

export interface MigrationFile {
  version: number;
  file: string;
}

/** The numbered migration files of `dir`, in order. Two files with one number are refused. */
export function migrationFiles(dir: string): MigrationFile[] {
  const list = readdirSync(dir)
    .flatMap((file) => {
      const m = MIGRATION_NAME.exec(file);
      return m ? [{ version: Number(m[1]), file }] : [];
    })
    .sort((a, b) => a.version - b.version);
  for (let i = 1; i < list.length; i++) {
    if (list[i].version === list[i - 1].version) {
      throw new Error(
        `migrations ${list[i - 1].file} and ${list[i].file} in ${dir} share the number ${list[i].version}`,
      );
    }
  }
  return list;
}

/**
 * Runs one migration's SQL. Statements run as written, except a block between a line
 * `-- migrate:when <query>` and a line `-- migrate:end`, which runs only when the query returns
 * a row. SQLite has no conditional DDL, and some repairs (rebuilding an index table whose stored
 * definition is out of date) cost too much to repeat on a database that is already right.
 */
export function runMigrationSql(db: Db, sql: string, label = "migration"): void {
  let chunk: string[] = [];
  let guard: { query: string; line: number } | null = null;
  const flush = (run: boolean) => {
    const text = chunk.join("\n");
    chunk = [];
    if (run && text.trim() !== "") db.exec(text);
  };
  const lines = sql.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const when = WHEN.exec(line);
    if (when) {
      if (guard) throw new Error(`${label}:${i + 1}: migrate:when inside another migrate:when`);
      flush(true);
      guard = { query: when[1], line: i + 1 };
    } else if (END.test(line)) {
      if (!guard) throw new Error(`${label}:${i + 1}: migrate:end without migrate:when`);
      flush(db.prepare(guard.query).get() !== undefined);
      guard = null;
    } else {
      chunk.push(lines[i]);
    }
  }
  if (guard) throw new Error(`${label}:${guard.line}: migrate:when without migrate:end`);
  flush(true);
}

function userVersion(db: Db): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Applies the numbered SQL files (`0001-name.sql`) of `dir` that are newer than the stored
 * `user_version`, each in its own transaction together with the version bump, so a failing file
 * leaves the database as it was before that file. Forward-only: a database whose version is
 * newer than the newest file was written by a newer build and is refused untouched.
 */
export function migrate(db: Db, dir: string): number {
  const files = migrationFiles(dir);
  const newest = files.length > 0 ? files[files.length - 1] : null;
  const found = userVersion(db);
  if (found > (newest?.version ?? 0)) {
    throw new Error(
      `database ${db.name} has schema version ${found}, newer than the newest migration this ` +
        `build knows (${newest ? `${newest.version}, ${newest.file}` : "none"}): it was written ` +
        "by a newer version. Refusing to downgrade it; run the newer version or restore a " +
        "backup taken before the upgrade.",
    );
  }
  // IMMEDIATE takes the write lock before the version is read again, so two processes starting
  // at once cannot both apply the same file.
  const apply = db.transaction((m: MigrationFile, sql: string) => {
    if (userVersion(db) >= m.version) return;
    runMigrationSql(db, sql, m.file);
    db.pragma(`user_version = ${m.version}`);
  });
  for (const m of files) {
    if (m.version <= userVersion(db)) continue;
    const sql = readFileSync(join(dir, m.file), "utf8");
    try {
      apply.immediate(m, sql);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new Error(`migration ${m.file} failed and was rolled back: ${reason}`, { cause });
    }
  }
  return userVersion(db);
}
