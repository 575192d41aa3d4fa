import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate, openDatabase, type Db } from "../../server/db/open.js";
import { invalidateAuditCounts } from "../../server/parcel/repos/admin-audit-cache.js";
import { listAudit, type AuditFilter } from "../../server/parcel/repos/admin-audit.js";
import { trigrams } from "../../server/parcel/repos/admin-audit-plan.js";
import { auditRows, deleteAuditRows, insertAuditRow } from "../helpers/raw-db.js";

const MIGRATIONS = join(import.meta.dirname, "../../server/parcel/migrations");

let dir: string;
let db: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-audit-"));
  db = openDatabase(join(dir, "parcel.db"));
  migrate(db, MIGRATIONS);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Row {
  id: number;
  action: string;
  source: string;
  target: string;
  time: number;
}

function add(action: string, source: string, target: string, time: number): number {
  return insertAuditRow(db, { action, source, target, time, detail: '{"k":1}', size: 10 });
}

function all(): Row[] {
  return auditRows(db);
}

/** The contract's rules, spelled out plainly: the reference the fast query must agree with. */
function reference(rows: Row[], f: AuditFilter): number[] {
  return rows
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
}

function ids(filter: AuditFilter, page = 1, pageSize = 20) {
  const r = db.transaction(() => listAudit(db, filter, { page, pageSize }))();
  return { ...r, ids: r.items.map((i) => i.id) };
}

/** Deterministic pseudo-random numbers (a test that can be replayed). */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe("listAudit", () => {
  it("answers an empty log as page 1 of 1", () => {
    deleteAuditRows(db);
    expect(listAudit(db, {}, { page: 3, pageSize: 20 })).toEqual({
      items: [],
      total: 0,
      page: 1,
      page_size: 20,
      pages: 1,
    });
  });

  it("answers records newest first with the contract's fields", () => {
    const a = add("admin.login", "admin:admin@10.0.0.1", "system", 100);
    const b = add("parcel.publish", "token@10.0.0.2", "parcel:AbC", 101);
    const r = listAudit(db, { from: 100 }, { page: 1, pageSize: 20 });
    expect(r).toEqual({
      items: [
        {
          id: b,
          action: "parcel.publish",
          source: "token@10.0.0.2",
          target: "parcel:AbC",
          time: 101,
          detail: { k: 1 },
        },
        {
          id: a,
          action: "admin.login",
          source: "admin:admin@10.0.0.1",
          target: "system",
          time: 100,
          detail: { k: 1 },
        },
      ],
      total: 2,
      page: 1,
      page_size: 20,
      pages: 1,
    });
  });

  it("takes % and _ literally and matches fragments case-sensitively", () => {
    deleteAuditRows(db);
    const pct = add("x.y", "visitor:50%off@1.1.1.1", "file:a_b", 1);
    add("x.y", "visitor:abcdefgh@1.1.1.1", "file:axb", 2);
    add("x.y", "token@1.1.1.1", "parcel:AAA", 3);
    expect(ids({ source: "%" }).ids).toEqual([pct]);
    expect(ids({ source: "0%o" }).ids).toEqual([pct]);
    expect(ids({ source: "%%" }).ids).toEqual([]);
    expect(ids({ target: "_" }).ids).toEqual([pct]);
    expect(ids({ target: "a_b" }).ids).toEqual([pct]);
    expect(ids({ target: "parcel:aaa" }).total).toBe(0);
    expect(ids({ target: "parcel:AAA" }).total).toBe(1);
    expect(ids({ source: '"quoted"' }).total).toBe(0);
    expect(ids({ source: "1.1.1.1", target: "file:" }).total).toBe(2);
  });

  it("treats from and to as inclusive, alone or together", () => {
    deleteAuditRows(db);
    const t = [10, 20, 20, 30, 40].map((time) => add("a.b", "s", "t", time));
    expect(ids({ from: 20 }).ids).toEqual([t[4], t[3], t[2], t[1]]);
    expect(ids({ to: 20 }).ids).toEqual([t[2], t[1], t[0]]);
    expect(ids({ from: 20, to: 20 }).ids).toEqual([t[2], t[1]]);
    expect(ids({ from: 21, to: 29 }).total).toBe(0);
    expect(ids({ from: 41 }).total).toBe(0);
    expect(ids({ to: 9 }).total).toBe(0);
  });

  it("counts rows on hour boundaries once, across whole and partial hours", () => {
    deleteAuditRows(db);
    const times = [3599, 3600, 3601, 7199, 7200, 10799, 10800, 14400, 20000];
    const t = times.map((time) => add("a.b", "s", "t", time));
    const expectWindow = (from: number | undefined, to: number | undefined) => {
      const want = t
        .filter(
          (_, i) =>
            (from === undefined || times[i] >= from) && (to === undefined || times[i] <= to),
        )
        .reverse();
      expect([from, to, ids({ from, to }, 1, 100).ids]).toEqual([from, to, want]);
    };
    for (const from of [undefined, 0, 3599, 3600, 3601, 7199, 7200, 10800, 14400]) {
      for (const to of [undefined, 3599, 3600, 7199, 7200, 10799, 10800, 14399, 14400, 99999]) {
        if (from === undefined || to === undefined || from <= to) expectWindow(from, to);
      }
    }
  });

  it("stays exact when time runs backwards and ids have gaps", () => {
    deleteAuditRows(db);
    // The clock was set back: ids and times disagree, so the id window is not dense.
    const t = [50, 60, 10, 70, 20, 80].map((time) => add("a.b", "s", "t", time));
    expect(ids({ from: 15, to: 65 }).ids).toEqual([t[4], t[1], t[0]]);
    expect(ids({ to: 20 }).ids).toEqual([t[4], t[2]]);
    deleteAuditRows(db, [t[3]]);
    invalidateAuditCounts(db);
    expect(ids({}).ids).toEqual([t[5], t[4], t[2], t[1], t[0]]);
    expect(ids({}, 2, 2).ids).toEqual([t[2], t[1]]);
    expect(ids({ from: 55 }).ids).toEqual([t[5], t[1]]);
  });

  it("clamps a page beyond the last one and reads deep pages from either end", () => {
    deleteAuditRows(db);
    const t = Array.from({ length: 45 }, (_, i) => add(i % 2 ? "a.odd" : "a.even", "s", "t", i));
    const newest = [...t].reverse();
    expect(ids({}, 99, 20)).toMatchObject({ page: 3, pages: 3, total: 45, ids: newest.slice(40) });
    expect(ids({}, 2, 20).ids).toEqual(newest.slice(20, 40));
    const even = newest.filter((_, i) => i % 2 === 0);
    expect(even).toHaveLength(23);
    for (let page = 1; page <= 5; page++) {
      expect(ids({ action: "a.even" }, page, 5).ids).toEqual(even.slice((page - 1) * 5, page * 5));
    }
    expect(ids({ action: "a.even" }, 6, 5).ids).toEqual(even.slice(20));
  });

  it("keeps counts exact as the log grows and after pruning", () => {
    deleteAuditRows(db);
    for (let i = 0; i < 30; i++) add("a.b", `visitor:${i % 3}abc@ip`, "system", 1000 + i);
    expect(ids({ source: "0abc" }).total).toBe(10);
    expect(ids({ from: 1010 }).total).toBe(20);
    add("a.b", "visitor:0abc@ip", "system", 2000);
    expect(ids({ source: "0abc" }).total).toBe(11);
    expect(ids({ from: 1010 }).total).toBe(21);
    expect(ids({}).total).toBe(31);
    deleteAuditRows(
      db,
      all()
        .filter((r) => r.time < 1015)
        .map((r) => r.id),
    );
    invalidateAuditCounts(db);
    expect(ids({ source: "0abc" }).total).toBe(6);
    expect(ids({ from: 1010 }).total).toBe(16);
  });

  it("agrees with a plain reading of the rules on random logs and filters", () => {
    deleteAuditRows(db);
    const rand = rng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const actions = ["upload.create", "pickup.deny", "admin.login", "download.start"];
    const sources = [
      "visitor:1a2b3c4d@192.168.1.20",
      "token@10.0.0.5",
      "admin:root@::1",
      "anonymous@10.0.0.%",
      "visitor:ff_0aa11@192.168.1.200",
    ];
    let time = 5000;
    const grow = (n: number) => {
      for (let i = 0; i < n; i++) {
        // Spans many hours (the hourly totals and their edges), with the clock sometimes set back.
        time += rand() < 0.1 ? -Math.floor(rand() * 400) : Math.floor(rand() * 60);
        const target =
          rand() < 0.2 ? "system" : `parcel:${Math.floor(rand() * 200).toString(36)}X_${i % 7}`;
        add(pick(actions), pick(sources), target, time);
      }
    };
    const fragments = [
      "",
      "1",
      "%",
      "_",
      "192.168.1.2",
      "visitor:",
      "ff_0",
      "X_3",
      "parcel:1",
      "k",
      "0.0.%",
      "zz",
    ];
    // Rounds of growth between queries exercise the counts kept up to date across inserts.
    for (let round = 0; round < 4; round++) {
      grow(round === 0 ? 1200 : 150);
      if (round === 1) {
        deleteAuditRows(
          db,
          all()
            .filter((r) => r.id % 97 === 0)
            .map((r) => r.id),
        );
        invalidateAuditCounts(db);
      }
      const rows = all();
      for (let i = 0; i < 150; i++) {
        const from = rand() < 0.4 ? 4000 + Math.floor(rand() * 50000) : undefined;
        const to = rand() < 0.4 ? (from ?? 5000) + Math.floor(rand() * 20000) : undefined;
        const f: AuditFilter = {
          action: rand() < 0.3 ? pick(actions) : undefined,
          source: rand() < 0.4 ? pick(fragments) : undefined,
          target: rand() < 0.4 ? pick(fragments) : undefined,
          from,
          to,
        };
        const want = reference(rows, f);
        const pageSize = pick([1, 7, 20, 100]);
        const pages = Math.max(1, Math.ceil(want.length / pageSize));
        const page = Math.min(pages, 1 + Math.floor(rand() * (pages + 1)));
        const got = ids(f, page, pageSize);
        expect([f, got.total]).toEqual([f, want.length]);
        expect([f, page, got.ids]).toEqual([
          f,
          page,
          want.slice((page - 1) * pageSize, page * pageSize),
        ]);
      }
    }
  });
});

describe("trigrams", () => {
  it("splits by code point and drops repeats", () => {
    expect(trigrams("ab")).toEqual([]);
    expect(trigrams("aaaa")).toEqual(["aaa"]);
    expect(trigrams("a😀bc")).toEqual(["a😀b", "😀bc"]);
  });
});
