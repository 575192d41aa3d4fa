import type { Db } from "../../db/open.js";

/** Bytes one device moved in one hour, and the local day that hour belongs to. */
export interface TrafficAdd {
  key: number;
  hour: number;
  day: number;
  upload: number;
  download: number;
}

/** Bytes summed over one bucket (an hour or a day). */
export interface BucketSum {
  bucket: number;
  upload: number;
  download: number;
}

/** Bytes summed per device over a span. */
export interface DeviceSum {
  key: number;
  upload: number;
  download: number;
}

export type Grain = "hour" | "day";

/**
 * What each device moved, per hour (hours since the epoch) and per local day (days since
 * 1970-01-01 of the gateway's calendar). Both tables are written together, so either answers
 * for its own grain.
 */
export class TrafficRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    const sums = (table: string, col: string) => ({
      all: db.prepare(
        `SELECT ${col} AS bucket, SUM(upload) AS upload, SUM(download) AS download FROM ${table}
          WHERE ${col} BETWEEN ? AND ? GROUP BY ${col}`,
      ),
      one: db.prepare(
        `SELECT ${col} AS bucket, upload, download FROM ${table}
          WHERE ${col} BETWEEN ? AND ? AND device_key = ?`,
      ),
      perDevice: db.prepare(
        `SELECT device_key AS key, SUM(upload) AS upload, SUM(download) AS download FROM ${table}
          WHERE ${col} BETWEEN ? AND ? GROUP BY device_key`,
      ),
    });
    this.stmts = {
      addHour: db.prepare(
        `INSERT INTO traffic_hours (hour, device_key, upload, download) VALUES (?, ?, ?, ?)
         ON CONFLICT(hour, device_key) DO UPDATE SET upload = upload + excluded.upload,
           download = download + excluded.download`,
      ),
      addDay: db.prepare(
        `INSERT INTO traffic_days (day, device_key, upload, download) VALUES (?, ?, ?, ?)
         ON CONFLICT(day, device_key) DO UPDATE SET upload = upload + excluded.upload,
           download = download + excluded.download`,
      ),
      hour: sums("traffic_hours", "hour"),
      day: sums("traffic_days", "day"),
      hoursOf: db.prepare("SELECT hour, upload, download FROM traffic_hours WHERE device_key = ?"),
      daysOf: db.prepare("SELECT day, upload, download FROM traffic_days WHERE device_key = ?"),
      dropHoursOf: db.prepare("DELETE FROM traffic_hours WHERE device_key = ?"),
      dropDaysOf: db.prepare("DELETE FROM traffic_days WHERE device_key = ?"),
      pruneHours: db.prepare("DELETE FROM traffic_hours WHERE hour < ?"),
      pruneDays: db.prepare("DELETE FROM traffic_days WHERE day < ?"),
    };
  }

  /** Adds counts to their hours and days; call inside a transaction (or it makes its own). */
  add(rows: readonly TrafficAdd[]): void {
    this.db.transaction(() => {
      for (const r of rows) {
        this.stmts.addHour.run(r.hour, r.key, r.upload, r.download);
        this.stmts.addDay.run(r.day, r.key, r.upload, r.download);
      }
    })();
  }

  /** Sums per bucket from `from` to `to` (inclusive), of one device or of all. */
  buckets(grain: Grain, from: number, to: number, key?: number): BucketSum[] {
    const s = this.stmts[grain];
    return (key === undefined ? s.all.all(from, to) : s.one.all(from, to, key)) as BucketSum[];
  }

  /** Sums per device from `from` to `to` (inclusive). */
  perDevice(grain: Grain, from: number, to: number): DeviceSum[] {
    return this.stmts[grain].perDevice.all(from, to) as DeviceSum[];
  }

  /**
   * Moves device `from`'s counts onto device `into` (the same device, known by its IP address
   * first and by its MAC address now). Call inside a transaction, before `from` goes.
   */
  merge(from: number, into: number): void {
    for (const r of this.stmts.hoursOf.all(from) as Array<BucketSum & { hour: number }>) {
      this.stmts.addHour.run(r.hour, into, r.upload, r.download);
    }
    for (const r of this.stmts.daysOf.all(from) as Array<BucketSum & { day: number }>) {
      this.stmts.addDay.run(r.day, into, r.upload, r.download);
    }
    this.stmts.dropHoursOf.run(from);
    this.stmts.dropDaysOf.run(from);
  }

  /** Drops what is older than the kept span; answers how many rows went. */
  prune(beforeHour: number, beforeDay: number): number {
    return (
      this.stmts.pruneHours.run(beforeHour).changes + this.stmts.pruneDays.run(beforeDay).changes
    );
  }
}
