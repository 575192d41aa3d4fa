import type { Db } from "../../db/open.js";

/** The UTC day (`YYYY-MM-DD`) of a Unix time. */
export function utcDay(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 10);
}

/** Bytes a client's counter may run ahead of the database (written at most this often). */
const FLUSH_BYTES = 8 * 1048576;

interface Pending {
  client: string;
  day: string;
  /** The day's total in the database when last read or written. */
  stored: number;
  /** Counted since, not yet written. */
  bytes: number;
}

/**
 * Daily incoming upload bytes per client IP (failed retries included). Upload
 * chunks are counted in memory and written every 8 MiB and when each transfer ends (`flush`),
 * not once per 64 KiB chunk; the limit is always checked against the full count.
 */
export class TrafficRepo {
  private readonly readStmt;
  private readonly addStmt;
  private readonly pending = new Map<string, Pending>();

  constructor(db: Db) {
    this.readStmt = db.prepare("SELECT bytes FROM traffic WHERE client = ? AND day = ?");
    this.addStmt = db.prepare(
      `INSERT INTO traffic (client, day, bytes) VALUES (?, ?, ?)
       ON CONFLICT (client, day) DO UPDATE SET bytes = bytes + excluded.bytes
       RETURNING bytes`,
    );
  }

  private stored(client: string, day: string): number {
    const row = this.readStmt.get(client, day) as { bytes: number } | undefined;
    return row?.bytes ?? 0;
  }

  used(client: string, unix: number): number {
    const day = utcDay(unix);
    return this.stored(client, day) + (this.pending.get(`${client}\n${day}`)?.bytes ?? 0);
  }

  /** Adds bytes and returns the day's new total. */
  add(client: string, unix: number, bytes: number): number {
    const day = utcDay(unix);
    const key = `${client}\n${day}`;
    let p = this.pending.get(key);
    if (!p) {
      p = { client, day, stored: this.stored(client, day), bytes: 0 };
      this.pending.set(key, p);
    }
    p.bytes += bytes;
    if (p.bytes >= FLUSH_BYTES) this.write(p);
    return p.stored + p.bytes;
  }

  /** Writes every count still held in memory (at the end of each transfer). */
  flush(): void {
    for (const p of this.pending.values()) if (p.bytes > 0) this.write(p);
    this.pending.clear();
  }

  private write(p: Pending): void {
    const row = this.addStmt.get(p.client, p.day, p.bytes) as { bytes: number };
    p.stored = row.bytes;
    p.bytes = 0;
  }
}
