import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, migrationFiles, runMigrationSql, type Db } from "../../server/db/open.js";
import { invalidateAuditCounts } from "../../server/parcel/repos/admin-audit-cache.js";
import { listAudit, type AuditFilter } from "../../server/parcel/repos/admin-audit.js";
import {
  buildFresh,
  buildState,
  earlierStates,
  FIXTURES,
  healthOf,
  MIGRATION_DIRS,
  migrationHash,
  rowsOf,
  schemaOf,
  stateName,
  type Service,
} from "../helpers/migration-history.js";
import { seedParcel } from "../helpers/parcel-history-seed.js";

/**
 * The sha256 of every shipped migration (line endings as LF). A database that applied a file
 * never sees a later edit of it, so a shipped file must never change: a change goes into a new
 * migration. A new file is added here when it ships.
 */
const FROZEN: Record<Service, Record<string, string>> = {
  parcel: {
    "0001-parcels.sql": "c24821f1402419cb486e14a84c036cf128aa173c6e8fee6e8fd6789e2b812477",
    "0004-admin.sql": "325de74d67cdee0400df8df64398cabab417694ed485fe6df44f0ef2c268072b",
    "0005-parcel-search.sql": "a43923177a78e523057f70c6ea1d3a79678e14fd00c1816fc48b5811fc1224b9",
    "0006-admin-catch-up.sql": "b92e539b99ef1df4ec27731cd28006db0ddc8923d5c7d323861483a752f954ba",
    "0007-parcel-token-index.sql":
      "bb51dddc2c54d11fc1c5407013511e217661cf67afdd27f2457ee5d8daea9ce1",
    "0008-blob-quarantine.sql": "52a2c02a497d7b22c8b0e293d43f43137b3a9a66e5764a3f5299b240c1381490",
    "0009-parcel-codes.sql": "691d715c90489da53e71be2b2339e9040a6e54350eaab23ddc460891f27431d0",
    "0010-inbox.sql": "18d3b5d1912e43eb02ac4b46cfbd3c30ec669df84d0b06728557c9501b4f0a35",
  },
  proxy: {
    "0001-proxy.sql": "898c7bd99069866cedaa018bb59d8f06d03921219dd9da336dadfd2bdc1f488b",
    "0002-subscription-error-code.sql":
      "2d9931fb07caac2f028f8120174f7fd3e968fa3240453b766f8c6d9e4cd382bc",
    "0003-subscription-created-at.sql":
      "e83d79e18b882db36c9c952f97e68777eb2bd747515ba4d9ddc8de6d1dbfab65",
    "0004-devices.sql": "89ff5a2401eb1edf50d870f12daa257dbf58bbb2f07fb3b83ed9c787e18c4731",
  },
};

const SERVICES: Service[] = ["parcel", "proxy"];

describe("shipped migrations", () => {
  for (const service of SERVICES) {
    const dir = MIGRATION_DIRS[service];
    for (const [file, hash] of Object.entries(FROZEN[service])) {
      it(`keeps ${service} ${file} exactly as shipped`, () => {
        const text = readFileSync(join(dir, file), "utf8");
        expect(
          migrationHash(text),
          `server/${service}/migrations/${file} has shipped and is frozen: a database that ` +
            "applied it never runs it again, so an edit reaches only new installations. " +
            "Undo the edit and add a new migration instead.",
        ).toBe(hash);
      });
    }

    it(`records a checksum for every ${service} migration and loses none`, () => {
      const files = migrationFiles(dir).map((m) => m.file);
      const unknown = files.filter((f) => !(f in FROZEN[service]));
      expect(
        unknown.map((f) => `${f}: ${migrationHash(readFileSync(join(dir, f), "utf8"))}`),
        "a new migration ships with its sha256 in FROZEN",
      ).toEqual([]);
      expect(files, "a shipped migration is never removed or renamed").toEqual(
        Object.keys(FROZEN[service]),
      );
    });

    it(`names every ${service} .sql file as a numbered migration`, () => {
      const sql = readdirSync(dir).filter((f) => f.endsWith(".sql"));
      expect(sql).toEqual(migrationFiles(dir).map((m) => m.file));
    });

    it(`keeps history fixtures only for ${service} migrations that still exist`, () => {
      const files = new Set(migrationFiles(dir).map((m) => m.file));
      const fixtures = readdirSync(join(FIXTURES, service)).flatMap((label) =>
        readdirSync(join(FIXTURES, service, label)),
      );
      expect(fixtures.length).toBeGreaterThan(0);
      expect(fixtures.filter((f) => !files.has(f))).toEqual([]);
    });
  }
});

interface Row {
  id: number;
  action: string;
  source: string;
  target: string;
  time: number;
}

/** The audit filter rules spelled out plainly: the reference the fast query must agree with. */
function expectAuditAnswers(db: Db): void {
  const rows = db.prepare("SELECT id, action, source, target, time FROM audit").all() as Row[];
  expect(rows.length).toBeGreaterThan(20);
  const t0 = Math.min(...rows.map((r) => r.time));
  const filters: AuditFilter[] = [
    {},
    { action: "parcel.publish" },
    { source: "admin:" },
    { source: "192.168.1.3" },
    { source: "@1" },
    { target: "parcel:p" },
    { target: "file:report" },
    { from: t0 + 3000, to: t0 + 12_000 },
    { from: t0 + 3700, to: t0 + 3900 },
    { from: t0 + 7200 },
    { to: t0 + 7199 },
    { source: "visitor:", from: t0 + 1000, to: t0 + 20_000, action: "parcel.delete" },
    { target: "nowhere-at-all" },
  ];
  for (const f of filters) {
    const want = rows
      .filter(
        (r) =>
          (f.action === undefined || r.action === f.action) &&
          (!f.source || r.source.includes(f.source)) &&
          (!f.target || r.target.includes(f.target)) &&
          (f.from === undefined || r.time >= f.from) &&
          (f.to === undefined || r.time <= f.to),
      )
      .map((r) => r.id)
      .sort((a, b) => b - a);
    const got = db.transaction(() => listAudit(db, f, { page: 1, pageSize: 1000 }))();
    expect({ filter: f, total: got.total, ids: got.items.map((i) => i.id) }).toEqual({
      filter: f,
      total: want.length,
      ids: want,
    });
  }
  // The trigram index itself holds exactly the rows containing each trigram.
  for (const [column, gram] of [
    ["source", "min"],
    ["target", "rep"],
  ] as const) {
    const indexed = db
      .prepare(`SELECT rowid FROM audit_fts(?) ORDER BY rowid`)
      .all(`${column} : "${gram}"`) as Array<{ rowid: number }>;
    const want = rows.filter((r) => r[column].includes(gram)).map((r) => r.id);
    expect(indexed.map((r) => r.rowid)).toEqual(want.sort((a, b) => a - b));
  }
}

/** Every hour holding audit rows has its exact count; the id bounds enclose the hour's ids. */
function expectHoursAgree(db: Db): void {
  const truth = db
    .prepare(
      `SELECT time - ((time % 3600) + 3600) % 3600 AS start, COUNT(*) AS n, MIN(id) AS lo, MAX(id) AS hi
         FROM audit GROUP BY start ORDER BY start`,
    )
    .all() as Array<{ start: number; n: number; lo: number; hi: number }>;
  const kept = db
    .prepare("SELECT start, n, min_id, max_id FROM audit_hours WHERE n <> 0 ORDER BY start")
    .all() as Array<{ start: number; n: number; min_id: number; max_id: number }>;
  expect(kept.map((h) => [h.start, h.n])).toEqual(truth.map((h) => [h.start, h.n]));
  kept.forEach((h, i) => {
    expect(h.min_id).toBeLessThanOrEqual(truth[i].lo);
    expect(h.max_id).toBeGreaterThanOrEqual(truth[i].hi);
  });
}

/** The service keeps running on the upgraded database: triggers follow new rows and deletes. */
function expectLifeGoesOn(db: Db): void {
  const add = db.prepare(
    "INSERT INTO audit (action, source, target, time, detail, size) VALUES ('parcel.publish', 'admin:late@10.9.9.9', 'parcel:pLATE', ?, '{}', 30)",
  );
  const last = db.prepare("SELECT MAX(time) AS t FROM audit").get() as { t: number };
  add.run(last.t + 5000);
  add.run(last.t + 5001);
  db.prepare("DELETE FROM audit WHERE id = (SELECT MIN(id) FROM audit)").run();
  invalidateAuditCounts(db);
  expectHoursAgree(db);
  expectAuditAnswers(db);
}

/**
 * Rows after an upgrade, cut down to the columns they had before it: a column the upgrade adds
 * (`ALTER TABLE … ADD COLUMN`) must be empty (null) in every kept row, the rest unchanged.
 */
function keptColumns(after: string[], before: string[]): string[] {
  if (before.length === 0) return after;
  const columns = Object.keys(JSON.parse(before[0]) as Record<string, unknown>);
  return after
    .map((text) => {
      const row = JSON.parse(text) as Record<string, unknown>;
      for (const [k, v] of Object.entries(row)) {
        if (!columns.includes(k) && v !== null) return `${text} (new column ${k} is not empty)`;
      }
      return JSON.stringify(Object.fromEntries(columns.map((c) => [c, row[c]])));
    })
    .sort();
}

describe("parcel database upgrades", () => {
  let work: string;
  let fresh: Db;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "gatehouse-mighist-"));
    fresh = buildFresh(join(work, "fresh"), "parcel");
  });
  afterAll(() => {
    fresh.close();
    rmSync(work, { recursive: true, force: true });
  });

  const states = earlierStates("parcel");
  it("covers every earlier text of 0004", () => {
    const withAdmin = states.filter((s) => s.some((v) => v.file === "0004-admin.sql"));
    const labels = new Set(withAdmin.map((s) => s.find((v) => v.file === "0004-admin.sql")?.label));
    expect([...labels].sort()).toEqual(["0735bc4", "288135e", "79fcc17", "d2a6026"]);
  });

  it.each(states.map((s, i) => [stateName(s), i] as const))(
    "brings %s to the current schema with every row kept",
    (_name, index) => {
      const dir = join(work, `state-${index}`);
      const db = buildState(dir, states[index], seedParcel);
      try {
        const before = rowsOf(db, ["audit_hours"]);
        expect(migrate(db, MIGRATION_DIRS.parcel)).toBe(schemaOf(fresh).userVersion);
        expect(schemaOf(db)).toEqual(schemaOf(fresh));
        expect(healthOf(db)).toEqual({ integrity: [{ integrity_check: "ok" }], foreignKeys: [] });
        const after = rowsOf(db, ["audit_hours"]);
        // Tables the upgrade created start empty; every table that was there keeps its rows.
        const created = Object.keys(after).filter((t) => !(t in before));
        expect(created.filter((t) => after[t].length > 0)).toEqual([]);
        expect(
          Object.fromEntries(Object.keys(before).map((t) => [t, keptColumns(after[t], before[t])])),
        ).toEqual(before);
        if (states[index].length > 0) {
          expectHoursAgree(db);
          expectAuditAnswers(db);
          expectLifeGoesOn(db);
        }
        // A second start applies nothing.
        expect(migrate(db, MIGRATION_DIRS.parcel)).toBe(schemaOf(fresh).userVersion);
      } finally {
        db.close();
      }
    },
  );

  it("changes nothing when the catch-up migration runs again on a current database", () => {
    const db = buildFresh(join(work, "current"), "parcel");
    try {
      seedParcel(db, 6, 0);
      seedParcel(db, 6, 1);
      const rootpages = () =>
        db.prepare("SELECT name, rootpage FROM sqlite_master ORDER BY name").all();
      const before = {
        schema: schemaOf(db),
        rows: rowsOf(db),
        pages: rootpages(),
        fts: db.prepare(`SELECT rowid FROM audit_fts('source : "vis"')`).all(),
      };
      const sql = readFileSync(join(MIGRATION_DIRS.parcel, "0006-admin-catch-up.sql"), "utf8");
      db.transaction(() => runMigrationSql(db, sql, "0006-admin-catch-up.sql"))();
      // Same root pages: no table or index was dropped and rebuilt (the trigram index among them).
      expect({
        schema: schemaOf(db),
        rows: rowsOf(db),
        pages: rootpages(),
        fts: db.prepare(`SELECT rowid FROM audit_fts('source : "vis"')`).all(),
      }).toEqual(before);
      expectHoursAgree(db);
      expectAuditAnswers(db);
    } finally {
      db.close();
    }
  });
});
