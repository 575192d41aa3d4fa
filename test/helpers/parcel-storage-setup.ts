import type { Harness } from "./parcel-harness.js";

/**
 * The few states a parcel test must write into storage because no request reaches them in
 * the time of a test: a parcel ended or held for review at a chosen moment, an audit log
 * emptied before counting its bytes, a password hash as an earlier build stored it. Tests read
 * storage through `h.repos`; only this file writes SQL for them, each function saying what
 * state it makes.
 */

/** Ends a parcel as its last download would, at `endedAt` (unix seconds). */
export function markExhausted(h: Harness, parcelId: string, endedAt: number): void {
  h.db
    .prepare(
      "UPDATE parcels SET state = 'exhausted', ended_at = ?, downloads_left = 0 WHERE id = ?",
    )
    .run(endedAt, parcelId);
}

/**
 * Holds a parcel for an administrator's review, as a failed check or too many wrong passwords
 * would, optionally with the counts and hash it was held with.
 */
export function markForReview(
  h: Harness,
  parcelId: string,
  held: { wrongPasswords?: number; passwordHash?: string; downloadsLeft?: number } = {},
): void {
  h.db
    .prepare(
      `UPDATE parcels SET state = 'review', wrong_passwords = coalesce(?, wrong_passwords),
         password_hash = coalesce(?, password_hash), downloads_left = coalesce(?, downloads_left)
       WHERE id = ?`,
    )
    .run(
      held.wrongPasswords ?? null,
      held.passwordHash ?? null,
      held.downloadsLeft ?? null,
      parcelId,
    );
}

/** Empties the audit log (the start and sign-in records), so a test counts only its own. */
export function emptyAudit(h: Harness): void {
  h.db.prepare("DELETE FROM audit").run();
}

/** Stores a parcel's password hash as given (one an earlier build wrote, at its cost). */
export function storeParcelPasswordHash(h: Harness, parcelId: string, hash: string): void {
  h.db.prepare("UPDATE parcels SET password_hash = ? WHERE id = ?").run(hash, parcelId);
}
