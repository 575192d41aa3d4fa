import type { Db } from "../../db/open.js";

/**
 * Records of stored blobs (content-addressed by SHA-256); the bytes live in the BlobStore. A
 * blob is recorded with the file that brings it (SessionsRepo.storeFile).
 */
export class BlobsRepo {
  private readonly existsStmt;
  private readonly blobStmt;
  private readonly betweenStmt;

  constructor(db: Db) {
    this.existsStmt = db.prepare("SELECT 1 FROM blobs WHERE sha256 = ?");
    this.blobStmt = db.prepare("SELECT size, crc32 FROM blobs WHERE sha256 = ?");
    this.betweenStmt = db.prepare("SELECT sha256 FROM blobs WHERE sha256 > ? AND sha256 < ?");
  }

  exists(sha256: string): boolean {
    return this.existsStmt.get(sha256) !== undefined;
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
