import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { migrate, openDatabase, type Db } from "../../server/db/open.js";
import {
  buildFresh,
  buildState,
  earlierStates,
  healthOf,
  rowsOf,
  schemaOf,
  stateName,
} from "../helpers/migration-history.js";

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "../../server/proxy/migrations");
let dir: string;
let db: Db;
afterEach(() => {
  db?.close();
  // A test that made no folder (the first to run, in a shuffled order) leaves nothing to remove.
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
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
      "device_addresses",
      "devices",
      "login_failures",
      "meta",
      "rules",
      "sessions",
      "subscriptions",
      "traffic_days",
      "traffic_hours",
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

/** Rows a proxy database holds: settings, the administrator, a session, limits, feeds, rules. */
function seedProxy(db: Db, version: number, step: number): void {
  if (version < 1) return;
  const meta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
  meta.run(`settings.${step}`, JSON.stringify({ mixed_port: 7890 + step }));
  if (step === 0) {
    db.prepare("INSERT INTO admin (id, password_hash, created_at) VALUES (1, 'scrypt$x', 5)").run();
    db.prepare(
      "INSERT INTO sessions (id_hash, csrf, created_at, expires_at) VALUES ('h', 'c', 5, 9e12)",
    ).run();
  }
  db.prepare("INSERT INTO login_failures (ip, at) VALUES ('192.168.1.9', ?)").run(1000 + step);
  db.prepare(
    `INSERT INTO subscriptions (id, position, name, url, enabled, interval_hours, node_count)
     VALUES (?, ?, 'feed', 'https://feed.example/sub', 1, 12, 3)`,
  ).run(`s${step}`, step);
  db.prepare(
    "INSERT INTO rules (id, position, type, value, action, enabled) VALUES (?, ?, 'DOMAIN-SUFFIX', 'lan', 'DIRECT', 1)",
  ).run(`r${step}`, step);
}

/**
 * The rows of the tables that were there before, read with the columns they had then: a later
 * migration may add columns (with defaults), never change or drop a value.
 */
function asBefore(
  before: Record<string, string[]>,
  after: Record<string, string[]>,
): Record<string, string[]> {
  return Object.fromEntries(
    Object.keys(before).map((t) => {
      const first = before[t][0];
      if (first === undefined) return [t, after[t]];
      const columns = Object.keys(JSON.parse(first) as object);
      const rows = (after[t] ?? []).map((json) => {
        const row = JSON.parse(json) as Record<string, unknown>;
        return JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c]])));
      });
      return [t, rows.sort()];
    }),
  );
}

describe("proxy database upgrades", () => {
  const states = earlierStates("proxy");
  it.each(states.map((s, i) => [stateName(s), i] as const))(
    "brings %s to the current schema with every row kept",
    (_name, index) => {
      dir = mkdtempSync(join(tmpdir(), "gatehouse-proxy-hist-"));
      const fresh = buildFresh(join(dir, "fresh"), "proxy");
      db = buildState(join(dir, "state"), states[index], seedProxy);
      try {
        const before = rowsOf(db);
        expect(migrate(db, MIGRATIONS)).toBe(schemaOf(fresh).userVersion);
        expect(schemaOf(db)).toEqual(schemaOf(fresh));
        expect(healthOf(db)).toEqual({ integrity: [{ integrity_check: "ok" }], foreignKeys: [] });
        const after = rowsOf(db);
        expect(asBefore(before, after)).toEqual(before);
        // Columns added since hold their defaults: an old failure simply has no code.
        for (const json of after.subscriptions ?? []) {
          expect(JSON.parse(json)).toMatchObject({ last_error_code: "", last_error_params: "{}" });
        }
        expect(Object.keys(after).filter((t) => !(t in before) && after[t].length > 0)).toEqual([]);
      } finally {
        fresh.close();
      }
    },
  );

  it("starts from an empty database among the earlier states", () => {
    expect(states.map(stateName)[0]).toBe("an empty database");
  });

  it("keeps every row of a current database when it starts again", () => {
    dir = mkdtempSync(join(tmpdir(), "gatehouse-proxy-hist-"));
    db = buildFresh(dir, "proxy");
    seedProxy(db, 1, 0);
    seedProxy(db, 1, 1);
    const before = { schema: schemaOf(db), rows: rowsOf(db) };
    expect(before.rows.rules).toHaveLength(2);
    migrate(db, MIGRATIONS);
    expect({ schema: schemaOf(db), rows: rowsOf(db) }).toEqual(before);
  });
});
