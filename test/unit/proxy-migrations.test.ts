import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { migrate, openDatabase, type Db } from "../../server/db/open.js";

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "../../server/proxy/migrations");
let dir: string;
let db: Db;
afterEach(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("proxy migrations", () => {
  it("apply to an empty database, once", () => {
    dir = mkdtempSync(join(tmpdir(), "gatehouse-proxy-mig-"));
    db = openDatabase(join(dir, "proxy.db"));
    const version = migrate(db, MIGRATIONS);
    expect(version).toBeGreaterThanOrEqual(1);
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as Array<{ name: string }>
    ).map((t) => t.name);
    expect(tables).toEqual([
      "admin",
      "login_failures",
      "meta",
      "rules",
      "sessions",
      "subscriptions",
    ]);
    expect(migrate(db, MIGRATIONS)).toBe(version);
    expect(() =>
      db.prepare("INSERT INTO admin (id, password_hash, created_at) VALUES (2, 'x', 0)").run(),
    ).toThrow();
    expect(() =>
      db
        .prepare(
          "INSERT INTO rules (id, position, type, value, action, enabled) VALUES ('a', 1, 'GEOIP', 'x', 'DIRECT', 1)",
        )
        .run(),
    ).toThrow();
  });
});
