import Database from "better-sqlite3";
import type { Db } from "../../server/db/open.js";
import { prepared } from "../../server/parcel/repos/statements.js";
import type { ParcelState } from "../../server/parcel/repos/parcels.js";

/**
 * The only door to raw SQL in tests and benchmarks. Everything else reads and writes storage
 * through the repositories (server/parcel/repos, server/proxy/store) or the HTTP API, so a
 * schema change is made in one place. What is here no repository can express, each function
 * saying what it does: opening a store behind a stopped (or killed) service's back, rows
 * written straight in (thousands faster than requests, or with ids and times chosen exactly),
 * states no request reaches in the time of a test (damage included), and whole-table reads a
 * checker needs that the product never makes.
 */

// --- Opening a store behind the service's back ---------------------------------------------

/** Opens a service database read-only (no journal changes, no locks kept). */
export function openReadOnly(file: string): Db {
  return new Database(file, { readonly: true, fileMustExist: true });
}

/** Opens an existing service database to write into it while the service is stopped. */
export function openForWriting(file: string): Db {
  const db = new Database(file, { fileMustExist: true });
  db.pragma("journal_mode = WAL");
  return db;
}

/** The driver's connection class, for a spy that sees every connection's prepared statements. */
export const SqliteConnection = Database;

/** Prepares one trivial statement on `db` (proof that a spy on the driver sees this connection). */
export function prepareProbe(db: Db): void {
  db.prepare("SELECT 1");
}

/**
 * Takes the database's write lock from another connection, so the service can read but never
 * commit until `release`.
 */
export function holdWriteLock(file: string): { release(): void } {
  const lock = new Database(file);
  lock.exec("BEGIN IMMEDIATE");
  return {
    release: () => {
      lock.exec("ROLLBACK");
      lock.close();
    },
  };
}

// --- Rows written straight in ----------------------------------------------------------------

export interface ParcelSeed {
  id: string;
  state?: ParcelState;
  ownerVisitor?: string | null;
  tokenHash?: string;
  codeHash?: string | null;
  days?: number;
  downloadsAllowed?: number;
  downloadsLeft?: number;
  renew?: boolean;
  createdAt?: number;
  sentAt?: number | null;
  /** Defaults to `sentAt ?? createdAt`, as the service keeps it. */
  sortAt?: number;
  expiresAt?: number;
  endedAt?: number | null;
  clientIp?: string;
  /** Lower-cased file names joined by "/". */
  searchNames?: string;
}

/** Writes one parcel row (its files are separate rows: insertFileRow). */
export function insertParcelRow(db: Db, p: ParcelSeed): void {
  const createdAt = p.createdAt ?? 0;
  const days = p.days ?? 7;
  const allowed = p.downloadsAllowed ?? 10;
  prepared(
    db,
    `INSERT INTO parcels (id, state, owner_visitor, token_hash, code_hash, days,
       downloads_allowed, downloads_left, renew, created_at, sent_at, sort_at, expires_at,
       ended_at, client_ip, search_names)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    p.id,
    p.state ?? "published",
    p.ownerVisitor ?? null,
    p.tokenHash ?? "x",
    p.codeHash ?? null,
    days,
    allowed,
    p.downloadsLeft ?? allowed,
    p.renew === false ? 0 : 1,
    createdAt,
    p.sentAt ?? null,
    p.sortAt ?? p.sentAt ?? createdAt,
    p.expiresAt ?? createdAt + days * 86400,
    p.endedAt ?? null,
    p.clientIp ?? "",
    p.searchNames ?? "",
  );
}

/** Writes one file row of a parcel: ready, with its blob or (null) none. */
export function insertFileRow(
  db: Db,
  f: { id: string; parcelId: string; idx: number; name: string; size: number; sha256?: string },
): void {
  prepared(
    db,
    "INSERT INTO files (id, parcel_id, idx, name, size, state, sha256) VALUES (?, ?, ?, ?, ?, 'ready', ?)",
  ).run(f.id, f.parcelId, f.idx, f.name, f.size, f.sha256 ?? null);
}

/** Writes one blob row (the bytes on disk are the caller's). */
export function insertBlobRow(
  db: Db,
  b: { sha256: string; size: number; crc32: number; createdAt: number },
): void {
  prepared(db, "INSERT INTO blobs (sha256, size, crc32, created_at) VALUES (?, ?, ?, ?)").run(
    b.sha256,
    b.size,
    b.crc32,
    b.createdAt,
  );
}

/** Writes one audit record with the size given (the service computes it); returns its id. */
export function insertAuditRow(
  db: Db,
  a: {
    action: string;
    source: string;
    target: string;
    time: number;
    detail?: string;
    size?: number;
  },
): number {
  const row = prepared(
    db,
    "INSERT INTO audit (action, source, target, time, detail, size) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(a.action, a.source, a.target, a.time, a.detail ?? "{}", a.size ?? 1);
  return Number(row.lastInsertRowid);
}

// --- States no request reaches in the time of a test ---------------------------------------

/** Ends a parcel as its last download would, at `endedAt` (unix seconds). */
export function markExhausted(db: Db, parcelId: string, endedAt: number): void {
  prepared(
    db,
    "UPDATE parcels SET state = 'exhausted', ended_at = ?, downloads_left = 0 WHERE id = ?",
  ).run(endedAt, parcelId);
}

/**
 * Holds a parcel for an administrator's review, as a failed check or too many wrong passwords
 * would, optionally with the counts and hash it was held with.
 */
export function markForReview(
  db: Db,
  parcelId: string,
  held: { wrongPasswords?: number; passwordHash?: string; downloadsLeft?: number } = {},
): void {
  prepared(
    db,
    `UPDATE parcels SET state = 'review', wrong_passwords = coalesce(?, wrong_passwords),
       password_hash = coalesce(?, password_hash), downloads_left = coalesce(?, downloads_left)
     WHERE id = ?`,
  ).run(
    held.wrongPasswords ?? null,
    held.passwordHash ?? null,
    held.downloadsLeft ?? null,
    parcelId,
  );
}

/** Sets a parcel's state and nothing else (a state some other path would reach). */
export function setParcelState(db: Db, parcelId: string, state: ParcelState): void {
  prepared(db, "UPDATE parcels SET state = ? WHERE id = ?").run(state, parcelId);
}

/** Moves a parcel's end of term (the service's sweep then ends it on its next request). */
export function setParcelExpiry(db: Db, parcelId: string, expiresAt: number): void {
  prepared(db, "UPDATE parcels SET expires_at = ? WHERE id = ?").run(expiresAt, parcelId);
}

/** Stores a chosen code's keyed hash for a parcel (a code with known characters). */
export function storeCodeHash(db: Db, parcelId: string, hash: string): void {
  prepared(db, "UPDATE parcels SET code_hash = ? WHERE id = ?").run(hash, parcelId);
}

/** Stores a parcel's password hash as given (one an earlier build wrote, at its cost). */
export function storeParcelPasswordHash(db: Db, parcelId: string, hash: string): void {
  prepared(db, "UPDATE parcels SET password_hash = ? WHERE id = ?").run(hash, parcelId);
}

/** Forgets every pickup failure (a fresh window without waiting a day). */
export function clearPickupFailures(db: Db): void {
  prepared(db, "DELETE FROM failures WHERE kind = 'pickup'").run();
}

/** Removes audit records behind the service's back: the ones given, or (none given) all. */
export function deleteAuditRows(db: Db, ids?: number[]): void {
  if (ids === undefined) prepared(db, "DELETE FROM audit").run();
  else
    prepared(db, "DELETE FROM audit WHERE id IN (SELECT value FROM json_each(?))").run(
      JSON.stringify(ids),
    );
}

/** Empties the audit log (the start and sign-in records), so a test counts only its own. */
export function emptyAudit(db: Db): void {
  deleteAuditRows(db);
}

// --- Whole tables a checker reads ------------------------------------------------------------

/** Tables whose rows a test may count. */
export type CountedTable = "parcels" | "files" | "blobs" | "failures" | "parcel_memos" | "audit";

export function countRows(db: Db, table: CountedTable): number {
  return (prepared(db, `SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

export interface StoreRows {
  blobs: Array<{ sha256: string; size: number; quarantined_at: number | null }>;
  files: Array<{
    id: string;
    parcel_id: string;
    size: number;
    state: string;
    sha256: string | null;
  }>;
  parcels: Array<{
    id: string;
    state: string;
    downloads_allowed: number;
    downloads_left: number;
    reserved_bytes: number;
  }>;
  /** The download and reissue records, oldest first. */
  downloads: Array<{ action: string; target: string; detail: string }>;
}

/** Every blob, file and parcel row and the download records, for the store's invariants. */
export function parcelStoreRows(db: Db): StoreRows {
  return {
    blobs: db.prepare("SELECT sha256, size, quarantined_at FROM blobs").all() as StoreRows["blobs"],
    files: db
      .prepare("SELECT id, parcel_id, size, state, sha256 FROM files")
      .all() as StoreRows["files"],
    parcels: db
      .prepare("SELECT id, state, downloads_allowed, downloads_left, reserved_bytes FROM parcels")
      .all() as StoreRows["parcels"],
    downloads: db
      .prepare(
        "SELECT action, target, detail FROM audit WHERE action IN ('download.start','download.complete','admin.reissue') ORDER BY id",
      )
      .all() as StoreRows["downloads"],
  };
}

/** Every parcel row whole (to show that no column holds a secret). */
export function allParcelRows(db: Db): unknown[] {
  return db.prepare("SELECT * FROM parcels").all();
}

/** Every audit record without its detail, in id order (a reference the fast query must match). */
export function auditRows(
  db: Db,
): Array<{ id: number; action: string; source: string; target: string; time: number }> {
  return db
    .prepare("SELECT id, action, source, target, time FROM audit ORDER BY id")
    .all() as Array<{
    id: number;
    action: string;
    source: string;
    target: string;
    time: number;
  }>;
}

/** Every subscription's refresh time and node count, for the snapshot invariants. */
export function subscriptionRows(
  db: Db,
): Array<{ id: string; updated_at: number | null; node_count: number }> {
  return db.prepare("SELECT id, updated_at, node_count FROM subscriptions").all() as Array<{
    id: string;
    updated_at: number | null;
    node_count: number;
  }>;
}
