import type { Db } from "../../db/open.js";
import type { ParcelRow } from "./parcels.js";

/** The inbox as stored (one row, id 1). */
export interface InboxRow {
  code_hash: string | null;
  code_box: string | null;
  code_gen: number;
  password_hash: string | null;
  opened_at: number | null;
  closes_at: number | null;
}

const CLOSED: InboxRow = {
  code_hash: null,
  code_box: null,
  code_gen: 0,
  password_hash: null,
  opened_at: null,
  closes_at: null,
};

/**
 * The inbox's one row and the parcels delivered to it. Opening and closing bump the code
 * generation in the same statement that changes the code, so a session cookie of the code
 * before can never match again.
 */
export class InboxRepo {
  private readonly s;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      get: p("SELECT * FROM inbox WHERE id = 1"),
      open: p(
        `INSERT INTO inbox (id, code_hash, code_box, code_gen, password_hash, opened_at, closes_at)
         VALUES (1, ?, ?, 1, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET code_hash = excluded.code_hash,
           code_box = excluded.code_box, code_gen = inbox.code_gen + 1,
           password_hash = excluded.password_hash, opened_at = excluded.opened_at,
           closes_at = excluded.closes_at
         RETURNING *`,
      ),
      close: p(
        `UPDATE inbox SET code_hash = NULL, code_box = NULL, password_hash = NULL,
           closes_at = NULL, code_gen = code_gen + 1
         WHERE id = 1 AND code_hash IS NOT NULL RETURNING *`,
      ),
      markInbox: p("UPDATE parcels SET inbox = 1 WHERE id = ?"),
      storeBox: p("UPDATE parcels SET inbox_box = ? WHERE id = ? AND inbox = 1"),
      // Delivered (published at least once) and not ended by time or a delete: newest first.
      delivered: p(
        `SELECT * FROM parcels WHERE inbox = 1 AND sent_at IS NOT NULL
           AND state IN ('published','exhausted','review')
         ORDER BY sort_at DESC, id DESC LIMIT ?`,
      ),
    };
  }

  /** The stored inbox (closed and generation 0 before it was ever opened). */
  get(): InboxRow {
    return (this.s.get.get() as InboxRow | undefined) ?? CLOSED;
  }

  /** Opens (or reopens with a new code); answers the row now in force. */
  open(
    code: { hash: string; box: string },
    passwordHash: string | null,
    now: number,
    closesAt: number,
  ): InboxRow {
    return this.s.open.get(code.hash, code.box, passwordHash, now, closesAt) as InboxRow;
  }

  /** Closes an open inbox; the row now in force, or null when it was already closed. */
  close(): InboxRow | null {
    return (this.s.close.get() as InboxRow | undefined) ?? null;
  }

  /** Marks a new upload session as a delivery to the inbox. */
  markInbox(parcelId: string): void {
    this.s.markInbox.run(parcelId);
  }

  /** Keeps an inbox parcel's current pickup code, sealed, for the operator. */
  storeCodeBox(parcelId: string, box: string): void {
    this.s.storeBox.run(box, parcelId);
  }

  /** The deliveries an operator can still fetch (or that locked), newest first. */
  delivered(limit: number): ParcelRow[] {
    return this.s.delivered.all(limit) as ParcelRow[];
  }
}
