import type { Db } from "../../db/open.js";
import { HELD_FOR_RENEWAL, holdParams, type FileRow, type RenewalHold } from "./parcels.js";

/** What admission compares against the budgets (see domain/admission.ts). */
export interface StoredUsage {
  storedBytes: number;
  reservedBytes: number;
  files: number;
}

/** A new upload session as stored: the parcel row's values and its declared files. */
export interface NewSession {
  id: string;
  owner: string | null;
  tokenHash: string;
  passwordHash: string | null;
  days: number;
  downloads: number;
  renew: boolean;
  now: number;
  expiresAt: number;
  reservedBytes: number;
  clientIp: string;
  searchNames: string;
  files: Array<{ id: string; name: string; size: number }>;
  /** Sent to the inbox (marked by the inbox repository in the same transaction). */
  inbox?: boolean;
}

/** What storing a received file came to (`SessionsRepo.storeFile`). */
export type StoreOutcome = "stored" | "closed" | "removed";

/**
 * The life of a parcel from upload session to end: creating and publishing sessions, the
 * file uploads, pickup codes, owner checks, revocation and the deadlines the sweep enforces.
 */
export class SessionsRepo {
  private readonly s;

  constructor(private readonly db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insertParcel: p(
        `INSERT INTO parcels (id, state, owner_visitor, token_hash, password_hash, days,
           downloads_allowed, downloads_left, renew, created_at, sort_at, expires_at,
           reserved_bytes, client_ip, search_names)
         VALUES (?, 'uploading', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertFile: p(
        "INSERT INTO files (id, parcel_id, idx, name, size, state) VALUES (?, ?, ?, ?, ?, 'pending')",
      ),
      publish: p(
        `UPDATE parcels SET state = 'published', sent_at = ?, sort_at = ?, expires_at = ?,
           reserved_bytes = 0 WHERE id = ? AND state = 'uploading'`,
      ),
      fileOf: p("SELECT * FROM files WHERE id = ? AND parcel_id = ?"),
      state: p("SELECT state, expires_at FROM parcels WHERE id = ?"),
      failFile: p("UPDATE files SET state = 'failed' WHERE id = ? AND state != 'ready'"),
      insertBlob: p(
        "INSERT OR IGNORE INTO blobs (sha256, size, crc32, created_at) VALUES (?, ?, ?, ?)",
      ),
      // The caller has just put verified bytes in the store under this hash.
      clearQuarantine: p("UPDATE blobs SET quarantined_at = NULL WHERE sha256 = ?"),
      markReady: p(
        "UPDATE files SET state = 'ready', sha256 = ? WHERE id = ? AND state != 'ready'",
      ),
      release: p("UPDATE parcels SET reserved_bytes = MAX(0, reserved_bytes - ?) WHERE id = ?"),
      pendingFiles: p("SELECT id FROM files WHERE parcel_id = ? AND state != 'ready'"),
      revokeLive: p(
        `UPDATE parcels SET state = 'revoked', ended_at = ?, reserved_bytes = 0
         WHERE id = ? AND state IN ('uploading','published','review')`,
      ),
      expirePublished: p(
        `UPDATE parcels SET state = 'expired', ended_at = expires_at
         WHERE state = 'published' AND expires_at <= @now AND NOT ${HELD_FOR_RENEWAL}`,
      ),
      timedOut: p("SELECT id FROM parcels WHERE state = 'uploading' AND expires_at <= ?"),
      revokeSession: p(
        "UPDATE parcels SET state = 'revoked', ended_at = ?, reserved_bytes = 0 WHERE id = ? AND state = 'uploading'",
      ),
      revokeAllSessions: p(
        "UPDATE parcels SET state = 'revoked', ended_at = ?, reserved_bytes = 0 WHERE state = 'uploading'",
      ),
      codeTaken: p("SELECT 1 FROM parcels WHERE code_hash = ? AND state IN ('published','review')"),
      storeCode: p(
        "UPDATE parcels SET code_hash = ?, code_tail = ?, code_box = ?, code_gen = code_gen + 1 WHERE id = ?",
      ),
      codeBox: p("SELECT code_box AS box, code_gen AS gen FROM parcels WHERE id = ?"),
      owner: p("SELECT token_hash AS tokenHash, owner_visitor AS owner FROM parcels WHERE id = ?"),
      tokenKnown: p("SELECT 1 FROM parcels WHERE token_hash = ? LIMIT 1"),
      stored: p("SELECT COALESCE(SUM(size), 0) AS n FROM blobs WHERE quarantined_at IS NULL"),
      reserved: p(
        `SELECT COALESCE(SUM(reserved_bytes), 0) AS n FROM parcels
         WHERE state = 'uploading' AND expires_at > ?`,
      ),
      // Live files, less those of timed-out sessions (a short range of the expiry index),
      // keeps the main count on its covering index.
      liveFiles: p(
        `SELECT COUNT(*) AS n FROM files f JOIN parcels p ON p.id = f.parcel_id
         WHERE p.state IN ('uploading','published','review')`,
      ),
      timedOutFiles: p(
        `SELECT COUNT(*) AS n FROM files f JOIN parcels p ON p.id = f.parcel_id
         WHERE p.state = 'uploading' AND p.expires_at <= ?`,
      ),
    };
  }

  create(s: NewSession): void {
    this.s.insertParcel.run(
      s.id,
      s.owner,
      s.tokenHash,
      s.passwordHash,
      s.days,
      s.downloads,
      s.downloads,
      s.renew ? 1 : 0,
      s.now,
      s.now,
      s.expiresAt,
      s.reservedBytes,
      s.clientIp,
      s.searchNames,
    );
    s.files.forEach((f, i) => this.s.insertFile.run(f.id, s.id, i, f.name, f.size));
  }

  /** Publishes an open session; false when it is no longer uploading. */
  publish(id: string, now: number, expiresAt: number): boolean {
    return this.s.publish.run(now, now, expiresAt, id).changes === 1;
  }

  fileOf(fileId: string, parcelId: string): FileRow | undefined {
    return this.s.fileOf.get(fileId, parcelId) as FileRow | undefined;
  }

  /** Whether the session still takes uploads: uploading and before its deadline. */
  isOpen(parcelId: string, now: number): boolean {
    const p = this.s.state.get(parcelId) as { state: string; expires_at: number } | undefined;
    return p !== undefined && p.state === "uploading" && p.expires_at > now;
  }

  failFile(fileId: string): void {
    this.s.failFile.run(fileId);
  }

  /**
   * Records a received file's blob and marks the file ready, releasing its reservation, in one
   * transaction. Nothing is written when the session ended meanwhile (`closed`) or the file's
   * row is gone, left out of the upload by its owner (`removed`): the blob row is inserted
   * only for a file that still exists to refer to it.
   */
  storeFile(
    file: FileRow,
    blob: { sha256: string; bytes: number; crc32: number },
    now: number,
  ): StoreOutcome {
    return this.db.transaction((): StoreOutcome => {
      if (!this.isOpen(file.parcel_id, now)) return "closed";
      if (!this.fileOf(file.id, file.parcel_id)) return "removed";
      this.s.insertBlob.run(blob.sha256, blob.bytes, blob.crc32, now);
      this.s.clearQuarantine.run(blob.sha256);
      if (this.s.markReady.run(blob.sha256, file.id).changes === 1)
        this.s.release.run(file.size, file.parcel_id);
      return "stored";
    })();
  }

  /** Ids of a parcel's files that are not ready (their partial data may lie in temp). */
  pendingFileIds(parcelId: string): string[] {
    return (this.s.pendingFiles.all(parcelId) as Array<{ id: string }>).map((r) => r.id);
  }

  /** Revokes a live parcel; false when it had already ended. */
  revoke(id: string, now: number): boolean {
    return this.s.revokeLive.run(now, id).changes === 1;
  }

  /** Published parcels past their expiry end, except those a running download may renew. */
  expirePublished(now: number, hold: RenewalHold): void {
    this.s.expirePublished.run(holdParams(now, hold));
  }

  /** Sessions past their deadline that are still marked uploading. */
  timedOutSessions(now: number): string[] {
    return (this.s.timedOut.all(now) as Array<{ id: string }>).map((r) => r.id);
  }

  revokeSession(id: string, now: number): void {
    this.s.revokeSession.run(now, id);
  }

  /** Revokes every open session (at start: none can still be running). */
  revokeAllSessions(now: number): void {
    this.s.revokeAllSessions.run(now);
  }

  /** Whether a parcel that can still be picked up holds this code hash. */
  codeTaken(hash: string): boolean {
    return this.s.codeTaken.get(hash) !== undefined;
  }

  /**
   * Stores a new code (its keyed hash, its last characters and, when the owner's token was at
   * hand, the code sealed with it) and bumps the code generation; false for an unknown parcel.
   */
  storeCode(id: string, code: { hash: string; tail: string; box: string | null }): boolean {
    return this.s.storeCode.run(code.hash, code.tail, code.box, id).changes === 1;
  }

  /** The sealed code of a parcel and the generation it was sealed for; undefined if unknown. */
  codeBox(id: string): { box: string | null; gen: number } | undefined {
    return this.s.codeBox.get(id) as { box: string | null; gen: number } | undefined;
  }

  owner(id: string): { tokenHash: string; owner: string | null } | undefined {
    return this.s.owner.get(id) as { tokenHash: string; owner: string | null } | undefined;
  }

  tokenKnown(tokenHash: string): boolean {
    return this.s.tokenKnown.get(tokenHash) !== undefined;
  }

  /**
   * The usage admission needs (call it inside the admitting transaction). A session past its
   * deadline holds nothing, even before a sweep has revoked it.
   */
  usage(now: number): StoredUsage {
    const n = (row: unknown) => (row as { n: number }).n;
    return {
      storedBytes: n(this.s.stored.get()),
      reservedBytes: n(this.s.reserved.get(now)),
      files: n(this.s.liveFiles.get()) - n(this.s.timedOutFiles.get(now)),
    };
  }
}
