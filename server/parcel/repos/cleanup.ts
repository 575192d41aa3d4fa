import type { Db } from "../../db/open.js";

const LIVE = "('uploading','published','review')";
const ENDED = "('expired','exhausted','revoked')";
/** File names a removed parcel's memo keeps (the audit view shows two, then "+N more"). */
export const MEMO_NAMES = 2;
/** Rows per write transaction; the caller gives the event loop a turn between batches. */
export const CLEANUP_BATCH = 200;

/** Files of live parcels that reference the blob `b`: none means the blob can go. */
const UNREFERENCED = `NOT EXISTS (SELECT 1 FROM files f JOIN parcels p ON p.id = f.parcel_id
    WHERE f.sha256 = b.sha256 AND p.state IN ${LIVE})`;

/**
 * The statements of the cleanup (cleanup.ts decides the order and the batching): removing
 * ended parcels, releasing their blob references, deleting unreferenced blob records and
 * expiring identities and counters. Each batch is one transaction.
 */
export class CleanupRepo {
  private readonly s;

  constructor(private readonly db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      endedAll: p(`SELECT id FROM parcels WHERE state IN ${ENDED} LIMIT ${CLEANUP_BATCH}`),
      endedBefore: p(
        `SELECT id FROM parcels WHERE ended_at <= ? AND state IN ${ENDED} LIMIT ${CLEANUP_BATCH}`,
      ),
      countFiles: p(
        "SELECT COUNT(*) AS n FROM files WHERE parcel_id IN (SELECT value FROM json_each(?))",
      ),
      // What the audit log needs to name a parcel once its row is gone (see parcel_memos).
      memo: p(
        `INSERT OR REPLACE INTO parcel_memos
           (id, names, files, bytes, code_tail, state, sent_at, removed_at)
         SELECT p.id,
           (SELECT json_group_array(name) FROM
             (SELECT name FROM files WHERE parcel_id = p.id ORDER BY idx LIMIT ${MEMO_NAMES})),
           (SELECT COUNT(*) FROM files WHERE parcel_id = p.id),
           (SELECT COALESCE(SUM(size), 0) FROM files WHERE parcel_id = p.id),
           p.code_tail, p.state, p.sent_at, ?
         FROM parcels p WHERE p.id IN (SELECT value FROM json_each(?))`,
      ),
      // Files go with their parcel (ON DELETE CASCADE).
      deleteParcels: p("DELETE FROM parcels WHERE id IN (SELECT value FROM json_each(?))"),
      unreleased: p(
        `SELECT id FROM parcels WHERE state IN ${ENDED} AND bytes_freed = 0 AND id > ?
         ORDER BY id LIMIT ${CLEANUP_BATCH}`,
      ),
      release: p(
        `UPDATE files SET sha256 = NULL WHERE parcel_id = ? AND sha256 IS NOT NULL
           AND sha256 NOT IN (SELECT value FROM json_each(?))`,
      ),
      freed: p(
        `UPDATE parcels SET bytes_freed = 1 WHERE id = ?
           AND NOT EXISTS (SELECT 1 FROM files WHERE parcel_id = ? AND sha256 IS NOT NULL)`,
      ),
      markFreed: p(
        `UPDATE parcels SET bytes_freed = 1 WHERE state IN ${ENDED} AND bytes_freed = 0
           AND NOT EXISTS (SELECT 1 FROM files f WHERE f.parcel_id = parcels.id AND f.sha256 IS NOT NULL)`,
      ),
      candidates: p(`SELECT b.sha256 AS sha FROM blobs b WHERE ${UNREFERENCED}`),
      stillFree: p(`SELECT b.size FROM blobs b WHERE b.sha256 = ? AND ${UNREFERENCED}`),
      dropRefs: p("UPDATE files SET sha256 = NULL WHERE sha256 = ?"),
      dropBlob: p("DELETE FROM blobs WHERE sha256 = ?"),
      visitors: p("DELETE FROM visitors WHERE expires_at <= ?"),
      sessions: p("DELETE FROM admin_sessions WHERE expires_at <= ?"),
      failures: p("DELETE FROM failures WHERE time <= ?"),
      traffic: p("DELETE FROM traffic WHERE day < ?"),
    };
  }

  /**
   * Removes one batch of ended parcels (all of them, or those ended at or before `endedBy`)
   * with their files, leaving a memo of each for the audit log; null when none is left.
   */
  removeEndedBatch(endedBy: number | null, now: number): { parcels: number; files: number } | null {
    return this.db.transaction(() => {
      const rows = (
        endedBy === null ? this.s.endedAll.all() : this.s.endedBefore.all(endedBy)
      ) as Array<{ id: string }>;
      if (rows.length === 0) return null;
      const list = JSON.stringify(rows.map((r) => r.id));
      const files = (this.s.countFiles.get(list) as { n: number }).n;
      this.s.memo.run(now, list);
      this.s.deleteParcels.run(list);
      return { parcels: rows.length, files };
    })();
  }

  /**
   * Releases the blob references of one batch of ended parcels with ids after `after`, except
   * those of `readingJson` (a JSON array of blobs being read). Returns the batch's ids.
   */
  releaseEndedBatch(after: string, readingJson: string): string[] {
    return this.db.transaction(() => {
      const ids = (this.s.unreleased.all(after) as Array<{ id: string }>).map((r) => r.id);
      for (const id of ids) {
        this.s.release.run(id, readingJson);
        this.s.freed.run(id, id);
      }
      return ids;
    })();
  }

  /** Marks ended parcels with no blob reference left as freed. */
  markFreed(): void {
    this.s.markFreed.run();
  }

  /** Blobs no file of a live parcel references. */
  unreferencedBlobs(): string[] {
    return (this.s.candidates.all() as Array<{ sha: string }>).map((r) => r.sha);
  }

  /**
   * Drops a blob's record and the dead references to it in one transaction, if it is still
   * unreferenced; returns its size, or null when it is referenced again.
   */
  dropBlob(sha256: string): number | null {
    return this.db.transaction(() => {
      const row = this.s.stillFree.get(sha256) as { size: number } | undefined;
      if (!row) return null;
      this.s.dropRefs.run(sha256);
      this.s.dropBlob.run(sha256);
      return row.size;
    })();
  }

  /** Expired visitors and admin sessions, failures before `failuresBefore`, older traffic days. */
  expireIdentities(now: number, failuresBefore: number, trafficBefore: string): void {
    this.db.transaction(() => {
      this.s.visitors.run(now);
      this.s.sessions.run(now);
      this.s.failures.run(failuresBefore);
      this.s.traffic.run(trafficBefore);
    })();
  }
}
