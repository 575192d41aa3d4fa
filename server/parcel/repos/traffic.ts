import type { Db } from "../../db/open.js";

/** The UTC day (`YYYY-MM-DD`) of a Unix time. */
export function utcDay(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 10);
}

/** Seconds from `unix` until the next UTC midnight (at least 1). */
export function secondsUntilUtcMidnight(unix: number): number {
  return Math.max(1, 86400 - (unix % 86400));
}

/** Daily incoming upload bytes per client IP (CONTRACT 2.5, failed retries included). */
export class TrafficRepo {
  private readonly readStmt;
  private readonly addStmt;

  constructor(db: Db) {
    this.readStmt = db.prepare("SELECT bytes FROM traffic WHERE client = ? AND day = ?");
    this.addStmt = db.prepare(
      `INSERT INTO traffic (client, day, bytes) VALUES (?, ?, ?)
       ON CONFLICT (client, day) DO UPDATE SET bytes = bytes + excluded.bytes
       RETURNING bytes`,
    );
  }

  used(client: string, unix: number): number {
    const row = this.readStmt.get(client, utcDay(unix)) as { bytes: number } | undefined;
    return row?.bytes ?? 0;
  }

  /** Adds bytes and returns the day's new total. */
  add(client: string, unix: number, bytes: number): number {
    const row = this.addStmt.get(client, utcDay(unix), bytes) as { bytes: number };
    return row.bytes;
  }
}
