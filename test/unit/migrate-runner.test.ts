import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate, openDatabase, runMigrationSql, type Db } from "../../server/db/open.js";

let work: string;
let files: string;
let db: Db;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  files = join(work, "migrations");
  mkdirSync(files);
  db = openDatabase(join(work, "test.db"));
});
afterEach(() => {
  db.close();
  rmSync(work, { recursive: true, force: true });
});

const write = (name: string, sql: string) => writeFileSync(join(files, name), sql);
const version = () => db.pragma("user_version", { simple: true }) as number;
const tables = () =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);

describe("migrate", () => {
  it("applies the numbered files newer than the stored version, in number order", () => {
    write("0002-b.sql", "CREATE TABLE b (x);");
    write("0001-a.sql", "CREATE TABLE a (x);");
    write("notes.txt", "not a migration");
    expect(migrate(db, files)).toBe(2);
    expect(tables()).toEqual(["a", "b"]);
    write("0003-c.sql", "INSERT INTO a VALUES (1);");
    expect(migrate(db, files)).toBe(3);
    expect(migrate(db, files)).toBe(3);
    expect(db.prepare("SELECT COUNT(*) AS n FROM a").get()).toEqual({ n: 1 });
  });

  it("refuses a database written by a newer version, naming both versions, and leaves it untouched", () => {
    write("0001-a.sql", "CREATE TABLE a (x);");
    write("0004-d.sql", "CREATE TABLE d (x);");
    db.exec("CREATE TABLE future (x); INSERT INTO future VALUES (42);");
    db.pragma("user_version = 7");
    expect(() => migrate(db, files)).toThrow(
      /schema version 7, newer than the newest migration this build knows \(4, 0004-d\.sql\).*Refusing to downgrade/,
    );
    expect(version()).toBe(7);
    expect(tables()).toEqual(["future"]);
    expect(db.prepare("SELECT x FROM future").all()).toEqual([{ x: 42 }]);
  });

  it("refuses a non-empty database when the service has no migrations at all", () => {
    db.pragma("user_version = 1");
    expect(() => migrate(db, files)).toThrow(/schema version 1.*\(none\)/);
  });

  it("rolls a failing file back whole and keeps the files before it", () => {
    write("0001-a.sql", "CREATE TABLE a (x);");
    write("0002-b.sql", "CREATE TABLE b (x);\nINSERT INTO a VALUES (1);\nTHIS IS NOT SQL;");
    expect(() => migrate(db, files)).toThrow(/migration 0002-b\.sql failed and was rolled back/);
    expect(version()).toBe(1);
    expect(tables()).toEqual(["a"]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM a").get()).toEqual({ n: 0 });
  });

  it("refuses two files with the same number", () => {
    write("0001-a.sql", "CREATE TABLE a (x);");
    write("0001-other.sql", "CREATE TABLE other (x);");
    expect(() => migrate(db, files)).toThrow(
      /0001-a\.sql and 0001-other\.sql .* share the number 1/,
    );
    expect(version()).toBe(0);
    expect(tables()).toEqual([]);
  });
});

describe("runMigrationSql", () => {
  const sql = [
    "CREATE TABLE t (x);",
    "-- migrate:when SELECT 1 FROM t WHERE x = 1",
    "INSERT INTO t VALUES ('guarded');",
    "-- migrate:end",
    "INSERT INTO t VALUES ('after');",
  ].join("\n");

  it("runs a guarded block only when its query returns a row, in file order", () => {
    runMigrationSql(db, sql);
    expect(db.prepare("SELECT x FROM t").all()).toEqual([{ x: "after" }]);
    db.exec("DROP TABLE t");
    runMigrationSql(
      db,
      sql.replace("CREATE TABLE t (x);", "CREATE TABLE t (x); INSERT INTO t VALUES (1);"),
    );
    expect(db.prepare("SELECT x FROM t").all()).toEqual([
      { x: 1 },
      { x: "guarded" },
      { x: "after" },
    ]);
  });

  it("refuses unbalanced guards with the line they are on", () => {
    expect(() => runMigrationSql(db, "SELECT 1;\n-- migrate:end", "x.sql")).toThrow(
      "x.sql:2: migrate:end without migrate:when",
    );
    expect(() => runMigrationSql(db, "-- migrate:when SELECT 1\nSELECT 1;", "x.sql")).toThrow(
      "x.sql:1: migrate:when without migrate:end",
    );
    expect(() =>
      runMigrationSql(
        db,
        "-- migrate:when SELECT 1\n-- migrate:when SELECT 1\n-- migrate:end",
        "x.sql",
      ),
    ).toThrow("x.sql:2: migrate:when inside another migrate:when");
  });
});
