import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * What the desktop has received through the inbox and where it put it, kept in a small JSON
 * file beside the settings, so a restart neither fetches a delivery twice (a second copy,
 * and a download used up) nor forgets where the files went ("Show in folder").
 */

export interface SavedFile {
  name: string;
  size: number;
  /** Where it was saved; null until then. */
  path: string | null;
}

export interface DeliveryRecord {
  /** The parcel's id. */
  id: string;
  /** The sender's address. */
  from: string;
  /** Unix seconds. */
  receivedAt: number;
  files: SavedFile[];
  /** Unix milliseconds when the last file was saved; null while files are missing. */
  savedAt: number | null;
  /** Why saving stopped (an English sentence for the log and the screen), or null. */
  error: string | null;
}

/** Deliveries kept in the list (the newest). */
export const LEDGER_LIMIT = 200;

function isRecord(v: unknown): v is DeliveryRecord {
  const r = v as DeliveryRecord | null;
  return (
    typeof r === "object" &&
    r !== null &&
    typeof r.id === "string" &&
    typeof r.from === "string" &&
    typeof r.receivedAt === "number" &&
    Array.isArray(r.files) &&
    r.files.every(
      (f) =>
        typeof f?.name === "string" &&
        typeof f.size === "number" &&
        (f.path === null || typeof f.path === "string"),
    )
  );
}

export class DeliveryLedger {
  private records: DeliveryRecord[];

  constructor(private readonly file: string) {
    this.records = this.read();
  }

  private read(): DeliveryRecord[] {
    try {
      const parsed = JSON.parse(readFileSync(this.file, "utf8")) as { deliveries?: unknown };
      return Array.isArray(parsed.deliveries) ? parsed.deliveries.filter(isRecord) : [];
    } catch {
      // Missing (first run) or unreadable: the inbox's own list is the truth; it starts over.
      return [];
    }
  }

  /** Written whole to a temporary file and renamed over the old one. */
  private write(): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      writeFileSync(temp, JSON.stringify({ version: 1, deliveries: this.records }), {
        mode: 0o600,
      });
      renameSync(temp, this.file);
    } catch (err) {
      try {
        unlinkSync(temp);
      } catch {
        // nothing was written
      }
      throw err;
    }
  }

  /** Newest first. */
  list(): DeliveryRecord[] {
    return this.records.map((r) => ({ ...r, files: r.files.map((f) => ({ ...f })) }));
  }

  get(id: string): DeliveryRecord | undefined {
    return this.records.find((r) => r.id === id);
  }

  /** Adds or replaces a delivery's record and writes the file. */
  put(record: DeliveryRecord): void {
    this.records = [record, ...this.records.filter((r) => r.id !== record.id)]
      .sort((a, b) => b.receivedAt - a.receivedAt)
      .slice(0, LEDGER_LIMIT);
    this.write();
  }
}
