import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { migrate, migrationFiles, openDatabase, type Db } from "../../server/db/open.js";

export type Service = "parcel" | "proxy";

const ROOT = join(import.meta.dirname, "../..");
export const MIGRATION_DIRS: Record<Service, string> = {
  parcel: join(ROOT, "server/parcel/migrations"),
  proxy: join(ROOT, "server/proxy/migrations"),
};
/** `<service>/<commit>/<file>.sql`: each text a shipped migration had, copied from git history. */
export const FIXTURES = join(ROOT, "test/fixtures/migrations");

/** sha256 of a migration's text; line endings are normalised so a CRLF checkout hashes alike. */
export function migrationHash(text: string): string {
  return createHash("sha256").update(text.replace(/\r\n/g, "\n")).digest("hex");
}

export interface Variant {
  file: string;
  version: number;
  /** The commit the text was copied from, or "current" for a text no fixture holds. */
  label: string;
  sql: string;
}

/** Every text each shipped migration file has had: the fixtures plus the current file. */
export function variantsOf(service: Service): Map<string, Variant[]> {
  const out = new Map<string, Variant[]>();
  const add = (file: string, label: string, sql: string) => {
    const list = out.get(file) ?? [];
    if (!list.some((v) => migrationHash(v.sql) === migrationHash(sql))) {
      list.push({ file, version: Number(file.slice(0, 4)), label, sql });
    }
    out.set(file, list);
  };
  const base = join(FIXTURES, service);
  for (const label of existsSync(base) ? readdirSync(base).sort() : []) {
    for (const file of readdirSync(join(base, label))) {
      add(file, label, readFileSync(join(base, label, file), "utf8"));
    }
  }
  for (const { file } of migrationFiles(MIGRATION_DIRS[service])) {
    add(file, "current", readFileSync(join(MIGRATION_DIRS[service], file), "utf8"));
  }
  return out;
}

/**
 * Every state an installed database can be in before it reaches the current files: each prefix
 * of the current migration list, with every text each file in it ever had (a database keeps the
 * text it applied; later edits of an applied file never reach it). The one state that is all
 * current text at full length is the fresh database itself and is left out.
 */
export function earlierStates(service: Service): Variant[][] {
  const dir = MIGRATION_DIRS[service];
  const current = migrationFiles(dir);
  const variants = variantsOf(service);
  let states: Variant[][] = [[]];
  const out: Variant[][] = [[]];
  for (const { file } of current) {
    states = states.flatMap((s) => (variants.get(file) ?? []).map((v) => [...s, v]));
    out.push(...states);
  }
  const isCurrent = (v: Variant) =>
    migrationHash(v.sql) === migrationHash(readFileSync(join(dir, v.file), "utf8"));
  return out.filter((s) => s.length < current.length || !s.every(isCurrent));
}

export function stateName(state: Variant[]): string {
  return state.length === 0
    ? "an empty database"
    : state.map((v) => `${v.file}@${v.label}`).join(" + ");
}

/**
 * Builds a database the way an installation of that age did: the state's files applied one at a
 * time by the real migrate(), `seed` writing rows after each (as the service would in between).
 */
export function buildState(
  workDir: string,
  state: Variant[],
  seed: (db: Db, version: number, step: number) => void,
): Db {
  const files = join(workDir, "history");
  mkdirSync(files, { recursive: true });
  const db = openDatabase(join(workDir, "state.db"));
  state.forEach((v, step) => {
    writeFileSync(join(files, v.file), v.sql);
    migrate(db, files);
    seed(db, v.version, step);
  });
  return db;
}

/** A database built from the current files alone. */
export function buildFresh(workDir: string, service: Service): Db {
  const files = join(workDir, "fresh");
  mkdirSync(files, { recursive: true });
  for (const { file } of migrationFiles(MIGRATION_DIRS[service])) {
    copyFileSync(join(MIGRATION_DIRS[service], file), join(files, file));
  }
  const db = openDatabase(join(workDir, "fresh.db"));
  migrate(db, files);
  return db;
}

/** Comments dropped and white space collapsed, so only the definition itself is compared. */
export function normaliseSql(sql: string | null): string | null {
  if (sql === null) return null;
  return sql
    .replace(/--[^\n]*/g, " ")
    .replace(/\s+/g, " ")
    .replace(/\(\s+/g, "(")
    .replace(/\s+\)/g, ")")
    .replace(/\s*,\s*/g, ", ")
    .trim();
}

interface MasterRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

export interface Schema {
  userVersion: number;
  objects: MasterRow[];
  /** Each FTS5 table's stored options (its `_config` rows: version, deletemerge, ...). */
  ftsOptions: Record<string, unknown[]>;
}

function ftsTables(db: Db): string[] {
  return (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5(%'",
      )
      .all() as Array<{ name: string }>
  ).map((r) => r.name);
}

export function schemaOf(db: Db): Schema {
  const objects = (
    db
      .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
      .all() as MasterRow[]
  ).map((r) => ({ ...r, sql: normaliseSql(r.sql) }));
  const ftsOptions: Record<string, unknown[]> = {};
  for (const name of ftsTables(db)) {
    ftsOptions[name] = db.prepare(`SELECT k, v FROM "${name}_config" ORDER BY k`).all();
  }
  return {
    userVersion: db.pragma("user_version", { simple: true }) as number,
    objects,
    ftsOptions,
  };
}

/**
 * Every row of every ordinary table, sorted, except derived data (FTS index tables and the
 * tables named in `derived`) that an upgrade may rebuild.
 */
export function rowsOf(db: Db, derived: string[] = []): Record<string, string[]> {
  const fts = ftsTables(db);
  const tables = (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'",
      )
      .all() as Array<{ name: string }>
  )
    .map((r) => r.name)
    .filter((t) => !derived.includes(t) && !fts.some((f) => t.startsWith(`${f}_`)))
    .sort();
  const out: Record<string, string[]> = {};
  for (const t of tables) {
    out[t] = (db.prepare(`SELECT * FROM "${t}"`).all() as unknown[])
      .map((r) => JSON.stringify(r))
      .sort();
  }
  return out;
}

/** `PRAGMA integrity_check` and `foreign_key_check`, as plain values to compare. */
export function healthOf(db: Db): { integrity: unknown[]; foreignKeys: unknown[] } {
  return {
    integrity: db.pragma("integrity_check", { simple: false }) as unknown[],
    foreignKeys: db.pragma("foreign_key_check") as unknown[],
  };
}
