import type { Db } from "../../db/open.js";

/** Records of stored blobs (content-addressed by SHA-256); the bytes live in the BlobStore. */
export class BlobsRepo {
  private readonly existsStmt;
  private readonly insertStmt;
  private readonly blobStmt;
  private readonly betweenStmt;

  constructor(db: Db) {
    this.existsStmt = db.prepare("SELECT 1 FROM blobs WHERE sha256 = ?");
    this.insertStmt = db.prepare(
      "INSERT OR IGNORE INTO blobs (sha256, size, crc32, created_at) VALUES (?, ?, ?, ?)",
    );
    this.blobStmt = db.prepare("SELECT size, crc32 FROM blobs WHERE sha256 = ?");
    this.betweenStmt = db.prepare("SELECT sha256 FROM blobs WHERE sha256 > ? AND sha256 < ?");
  }

  exists(sha256: string): boolean {
    return this.existsStmt.get(sha256) !== undefined;
  }

  /** Records a blob unless it is already recorded (dedup). */
  insert(blob: { sha256: string; bytes: number; crc32: number }, now: number): void {
    this.insertStmt.run(blob.sha256, blob.bytes, blob.crc32, now);
  }

  blob(sha256: string): { size: number; crc32: number } | undefined {
    return this.blobStmt.get(sha256) as { size: number; crc32: number } | undefined;
  }

  /** The recorded hashes that start with `prefix` (one directory of the store). */
  withPrefix(prefix: string): Set<string> {
    const rows = this.betweenStmt.all(prefix, `${prefix}g`) as Array<{ sha256: string }>;
    return new Set(rows.map((r) => r.sha256));
  }
}
