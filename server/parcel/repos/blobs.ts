import type { Db } from "../../db/open.js";

/** A blob's record: its size and CRC-32, and when it was quarantined (null: it is good). */
export interface BlobRow {
  size: number;
  crc32: number;
  quarantined_at: number | null;
}

/**
 * Records of stored blobs (content-addressed by SHA-256); the bytes live in the BlobStore. A
 * blob is recorded with the file that brings it (SessionsRepo.storeFile). A quarantined blob
 * keeps its record (files still point at it) but its bytes are out of the store: it is never
 * served, counts as stored nowhere, and the next upload of its content stores it afresh.
 */
export class BlobsRepo {
  private readonly existsStmt;
  private readonly blobStmt;
  private readonly betweenStmt;
  private readonly quarantineStmt;
  private readonly quarantinedStmt;
  private readonly filesStmt;
  private readonly pageStmt;
  private readonly countStmt;

  constructor(db: Db) {
    this.existsStmt = db.prepare("SELECT 1 FROM blobs WHERE sha256 = ?");
    this.blobStmt = db.prepare("SELECT size, crc32, quarantined_at FROM blobs WHERE sha256 = ?");
    this.betweenStmt = db.prepare("SELECT sha256 FROM blobs WHERE sha256 > ? AND sha256 < ?");
    this.quarantineStmt = db.prepare(
      "UPDATE blobs SET quarantined_at = ? WHERE sha256 = ? AND quarantined_at IS NULL",
    );
    this.quarantinedStmt = db.prepare(
      "SELECT sha256 FROM blobs WHERE quarantined_at IS NOT NULL ORDER BY sha256",
    );
    this.filesStmt = db.prepare(
      "SELECT id, name, parcel_id FROM files WHERE sha256 = ? ORDER BY rowid LIMIT 1000",
    );
    this.pageStmt = db.prepare(
      `SELECT sha256, size FROM blobs
       WHERE sha256 > ? AND created_at <= ? AND quarantined_at IS NULL
       ORDER BY sha256 LIMIT ?`,
    );
    this.countStmt = db.prepare(
      "SELECT COUNT(*) AS n FROM blobs WHERE created_at <= ? AND quarantined_at IS NULL",
    );
  }

  exists(sha256: string): boolean {
    return this.existsStmt.get(sha256) !== undefined;
  }

  blob(sha256: string): BlobRow | undefined {
    return this.blobStmt.get(sha256) as BlobRow | undefined;
  }

  /** The recorded hashes that start with `prefix` (one directory of the store). */
  withPrefix(prefix: string): Set<string> {
    const rows = this.betweenStmt.all(prefix, `${prefix}g`) as Array<{ sha256: string }>;
    return new Set(rows.map((r) => r.sha256));
  }

  /** Marks a blob quarantined; false when it has no record or already was. */
  quarantine(sha256: string, now: number): boolean {
    return this.quarantineStmt.run(now, sha256).changes === 1;
  }

  /** Every quarantined blob (few: each is a damaged copy). */
  quarantined(): string[] {
    return (this.quarantinedStmt.all() as Array<{ sha256: string }>).map((r) => r.sha256);
  }

  /** The files (of any parcel) whose content is this blob, the first thousand, oldest first. */
  files(sha256: string): Array<{ id: string; name: string; parcel_id: string }> {
    return this.filesStmt.all(sha256) as Array<{ id: string; name: string; parcel_id: string }>;
  }

  /** Good blobs recorded by `createdBy`, in hash order after `after`, `limit` at a time. */
  page(after: string, createdBy: number, limit: number): Array<{ sha256: string; size: number }> {
    return this.pageStmt.all(after, createdBy, limit) as Array<{ sha256: string; size: number }>;
  }

  /** How many good blobs were recorded by `createdBy`. */
  count(createdBy: number): number {
    return (this.countStmt.get(createdBy) as { n: number }).n;
  }
}
