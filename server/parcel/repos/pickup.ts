import type { Db } from "../../db/open.js";
import { HELD_FOR_RENEWAL, holdParams, type ParcelRow, type RenewalHold } from "./parcels.js";

/** Failure events of the pickup limit per client, in the shared `failures` table. */
const KIND = "pickup";

/**
 * Pickup storage: code lookup, the per-client failure window (persisted, so it survives a
 * restart), the per-parcel wrong-password count, and the download counter (deduct, refund,
 * renew), each a single statement or transaction so concurrent requests stay exact.
 */
export class PickupRepo {
  private readonly byCode;
  private readonly failureTimes;
  private readonly serviceFailureCount;
  private readonly serviceFailureAt;
  private readonly addFailureStmt;
  private readonly dropFailureStmt;
  private readonly wrongStmt;
  private readonly lockStmt;
  private readonly deductStmt;
  private readonly refundStmt;
  private readonly getStmt;
  private readonly renewStmt;

  constructor(private readonly db: Db) {
    // A code is unique among parcels that can still be picked up; ended parcels may share an
    // old hash, so the live one wins, then the most recent.
    this.byCode = db.prepare(
      `SELECT * FROM parcels WHERE code_hash = ?
       ORDER BY state IN ('published','review') DESC, sort_at DESC, id DESC LIMIT 1`,
    );
    this.failureTimes = db.prepare(
      `SELECT time FROM failures WHERE kind = '${KIND}' AND client = ? AND time > ? ORDER BY time`,
    );
    // Service-wide: `+kind` keeps the planner on the time index, which reads only the
    // window's rows (the kind index would walk every pickup failure of the last day).
    this.serviceFailureCount = db.prepare(
      `SELECT COUNT(*) AS n FROM failures WHERE +kind = '${KIND}' AND time > ?`,
    );
    this.serviceFailureAt = db.prepare(
      `SELECT time FROM failures WHERE +kind = '${KIND}' AND time > ? ORDER BY time LIMIT 1 OFFSET ?`,
    );
    this.addFailureStmt = db.prepare(
      `INSERT INTO failures (kind, client, time) VALUES ('${KIND}', ?, ?)`,
    );
    this.dropFailureStmt = db.prepare("DELETE FROM failures WHERE rowid = ?");
    this.wrongStmt = db.prepare(
      "UPDATE parcels SET wrong_passwords = wrong_passwords + 1 WHERE id = ? RETURNING wrong_passwords AS n, state",
    );
    this.lockStmt = db.prepare(
      "UPDATE parcels SET state = 'review' WHERE id = ? AND state = 'published'",
    );
    this.deductStmt = db.prepare(
      `UPDATE parcels SET downloads_left = downloads_left - 1,
         state = CASE WHEN downloads_left = 1 THEN 'exhausted' ELSE state END,
         ended_at = CASE WHEN downloads_left = 1 THEN @now ELSE ended_at END
       WHERE id = @id AND code_gen = @gen AND state = 'published' AND downloads_left > 0
         AND (expires_at > @now OR ${HELD_FOR_RENEWAL})
       RETURNING downloads_left`,
    );
    this.refundStmt = db.prepare(
      `UPDATE parcels SET downloads_left = downloads_left + 1,
         state = CASE WHEN state = 'exhausted' THEN 'published' ELSE state END,
         ended_at = CASE WHEN state = 'exhausted' THEN NULL ELSE ended_at END
       WHERE id = ? AND downloads_left < downloads_allowed
         AND (state != 'exhausted' OR (bytes_freed = 0 AND NOT EXISTS
           (SELECT 1 FROM files f WHERE f.parcel_id = parcels.id AND f.sha256 IS NULL)))`,
    );
    this.getStmt = db.prepare("SELECT * FROM parcels WHERE id = ?");
    this.renewStmt = db.prepare("UPDATE parcels SET expires_at = ? WHERE id = ?");
  }

  findByCodeHash(hash: string): ParcelRow | undefined {
    return this.byCode.get(hash) as ParcelRow | undefined;
  }

  /** Times of this client's failures inside the window ending now, oldest first. */
  recentFailures(client: string, now: number, windowSeconds: number): number[] {
    return (this.failureTimes.all(client, now - windowSeconds) as Array<{ time: number }>).map(
      (r) => r.time,
    );
  }

  /** How many failures of every client fall inside the window ending now. */
  serviceFailures(now: number, windowSeconds: number): number {
    return (this.serviceFailureCount.get(now - windowSeconds) as { n: number }).n;
  }

  /** Time of the failure at `index` (0 = oldest) among every client's inside the window. */
  serviceFailureTime(now: number, windowSeconds: number, index: number): number | null {
    const row = this.serviceFailureAt.get(now - windowSeconds, index) as
      { time: number } | undefined;
    return row ? row.time : null;
  }

  /** Records one failure; returns its row id (so a provisional one can be taken back). */
  addFailure(client: string, now: number): number {
    return Number(this.addFailureStmt.run(client, now).lastInsertRowid);
  }

  dropFailure(rowid: number): void {
    this.dropFailureStmt.run(rowid);
  }

  /**
   * Counts one wrong password; when the count reaches `attempts` a published parcel moves to
   * `review`. Returns whether this call locked it.
   */
  wrongPassword(parcelId: string, attempts: number): boolean {
    return this.db.transaction(() => {
      const row = this.wrongStmt.get(parcelId) as { n: number; state: string } | undefined;
      if (!row || row.n < attempts) return false;
      return this.lockStmt.run(parcelId).changes === 1;
    })();
  }

  /**
   * Takes one download from a published, unexpired parcel (or one past its expiry that a
   * running download may still renew, which the sweep leaves published) whose code generation
   * still matches the grant; the last one makes it `exhausted`. Returns the downloads left, or
   * null when none could be taken.
   */
  deduct(parcelId: string, codeGen: number, now: number, hold: RenewalHold): number | null {
    return this.db.transaction(() => {
      const row = this.deductStmt.get({ ...holdParams(now, hold), id: parcelId, gen: codeGen }) as
        { downloads_left: number } | undefined;
      return row ? row.downloads_left : null;
    })();
  }

  /**
   * Returns a deduction for a transfer that sent no byte; an `exhausted` parcel goes back to
   * `published`. Not when cleanup already released an exhausted parcel's bytes meanwhile: there
   * is nothing left to pick up, so it stays ended. Returns whether the download was returned.
   */
  refund(parcelId: string): boolean {
    return this.refundStmt.run(parcelId).changes === 1;
  }

  /**
   * Renewal after a completed body: when the parcel is still published with downloads left and
   * `renew` on, `next(row)` gives the new expiry (the caller's formula). Returns the expiry
   * now in force, or null when nothing was renewed.
   */
  renew(parcelId: string, next: (p: ParcelRow) => number): number | null {
    return this.db.transaction(() => {
      const p = this.getStmt.get(parcelId) as ParcelRow | undefined;
      if (!p || p.state !== "published" || p.downloads_left <= 0 || p.renew !== 1) return null;
      const expiry = next(p);
      if (expiry !== p.expires_at) this.renewStmt.run(expiry, parcelId);
      return expiry;
    })();
  }
}
