import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Tests reach the database through the repositories (where the SQL lives) or the HTTP API, so a
// schema change is made in one place and a test cannot pass on a row the service never writes.
// Raw SQL belongs only in test/helpers/raw-db.ts, for what no repository can express (rows seeded
// by the thousand, states no request reaches in a test's time, damage, whole-table reads of the
// store checkers), each function named for what it does. The files in SCHEMA_TESTS test the
// migrations themselves: their subject is the SQL schema (an earlier version's tables, the runner
// over made-up migrations), which no repository speaks, so they keep their SQL. The list may
// only shrink: a file that no longer needs raw SQL must leave it, and no new file may join it.

const ROOT = resolve(import.meta.dirname, "../..");
const RAW_DB_HELPER = "test/helpers/raw-db.ts";

const SCHEMA_TESTS = [
  "test/helpers/migration-history.ts",
  "test/helpers/parcel-history-seed.ts",
  "test/unit/migrate-runner.test.ts",
  "test/unit/migrations-history.test.ts",
  "test/unit/proxy-migrations.test.ts",
];

/** What counts as reaching the database around the repositories. */
const RAW_SQL: Array<[string, RegExp]> = [
  ["a prepared statement", /\.prepare\(/],
  ["SQL handed to exec", /\.exec\(\s*["'`]/],
  ["the SQLite driver itself", /^\s*import\s[^'\n]*\sfrom\s+"better-sqlite3"/m],
];

/** Why `source` bypasses the repositories, or [] when it does not. */
function rawSqlUses(source: string): string[] {
  return RAW_SQL.filter(([, re]) => re.test(source)).map(([what]) => what);
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(c|m)?[jt]s$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .filter((p) => !p.includes("node_modules"));
}

describe("tests reach the database through the repositories or the API", () => {
  const files = [...sourcesUnder("test"), ...sourcesUnder("bench")].filter(
    (p) => p !== RAW_DB_HELPER && p !== "test/unit/tests-reach-db-through-repos.test.ts",
  );

  it("sees raw SQL where it is (the rule is not blind)", () => {
    expect(rawSqlUses('db.prepare("SELECT 1").get()')).toEqual(["a prepared statement"]);
    expect(rawSqlUses('lock.exec("BEGIN IMMEDIATE")')).toEqual(["SQL handed to exec"]);
    expect(rawSqlUses('import Database from "better-sqlite3";')).toEqual([
      "the SQLite driver itself",
    ]);
    expect(rawSqlUses("const m = /x/.exec(line);")).toEqual([]);
    expect(rawSqlUses("const repo = new ParcelsRepo(db); repo.byId(id);")).toEqual([]);
  });

  it("finds no raw SQL outside the raw-db helper and the migration tests", () => {
    const offenders = files
      .filter((p) => !SCHEMA_TESTS.includes(p))
      .map((p) => ({ p, uses: rawSqlUses(readFileSync(join(ROOT, p), "utf8")) }))
      .filter((o) => o.uses.length > 0)
      .map((o) => `${o.p}: ${o.uses.join(", ")}`);
    expect(offenders).toEqual([]);
  });

  it("lists only files that still need raw SQL (the list only shrinks)", () => {
    const stale = SCHEMA_TESTS.filter(
      (p) => !files.includes(p) || rawSqlUses(readFileSync(join(ROOT, p), "utf8")).length === 0,
    );
    expect(stale).toEqual([]);
  });
});
