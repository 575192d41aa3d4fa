import type { Db } from "../../db/open.js";

/**
 * Who is calling: visitor identities, administrator accounts and sessions, and the failed
 * sign-ins of each client address. Only hashes of cookies and tokens are stored.
 */
export class IdentityRepo {
  private readonly visitorStmt;
  private readonly addVisitorStmt;
  private readonly sessionStmt;
  private readonly addSessionStmt;
  private readonly endSessionStmt;
  private readonly endOtherSessionsStmt;
  private readonly endSessionsOfStmt;
  private readonly adminStmt;
  private readonly anyAdminStmt;
  private readonly upsertAdminStmt;
  private readonly setHashStmt;
  private readonly loginFailuresStmt;
  private readonly addLoginFailureStmt;
  private readonly dropFailureStmt;
  private readonly clearLoginFailuresStmt;

  constructor(private readonly db: Db) {
    this.visitorStmt = db.prepare(
      "SELECT id, expires_at AS expiresAt FROM visitors WHERE cookie_hash = ?",
    );
    this.addVisitorStmt = db.prepare(
      "INSERT INTO visitors (id, cookie_hash, expires_at) VALUES (?, ?, ?)",
    );
    this.sessionStmt = db.prepare(
      "SELECT username, expires_at AS expiresAt FROM admin_sessions WHERE token_hash = ?",
    );
    this.addSessionStmt = db.prepare(
      "INSERT INTO admin_sessions (token_hash, username, expires_at) VALUES (?, ?, ?)",
    );
    this.endSessionStmt = db.prepare("DELETE FROM admin_sessions WHERE token_hash = ?");
    this.endOtherSessionsStmt = db.prepare("DELETE FROM admin_sessions WHERE token_hash <> ?");
    this.endSessionsOfStmt = db.prepare("DELETE FROM admin_sessions WHERE username = ?");
    this.adminStmt = db.prepare("SELECT password_hash AS hash FROM admins WHERE username = ?");
    this.anyAdminStmt = db.prepare("SELECT 1 FROM admins LIMIT 1");
    this.upsertAdminStmt = db.prepare(
      "INSERT INTO admins (username, password_hash, created_at) VALUES (?, ?, ?) ON CONFLICT(username) DO UPDATE SET password_hash = excluded.password_hash",
    );
    this.setHashStmt = db.prepare("UPDATE admins SET password_hash = ? WHERE username = ?");
    this.loginFailuresStmt = db.prepare(
      "SELECT COUNT(*) AS n, MIN(time) AS first FROM failures WHERE kind = 'login' AND client = ? AND time > ?",
    );
    this.addLoginFailureStmt = db.prepare(
      "INSERT INTO failures (kind, client, time) VALUES ('login', ?, ?)",
    );
    this.dropFailureStmt = db.prepare("DELETE FROM failures WHERE rowid = ?");
    this.clearLoginFailuresStmt = db.prepare("DELETE FROM failures WHERE kind = 'login'");
  }

  /** The visitor behind a cookie's hash (expired ones included: the caller judges). */
  visitor(cookieHash: string): { id: string; expiresAt: number } | undefined {
    return this.visitorStmt.get(cookieHash) as { id: string; expiresAt: number } | undefined;
  }

  addVisitor(id: string, cookieHash: string, expiresAt: number): void {
    this.addVisitorStmt.run(id, cookieHash, expiresAt);
  }

  adminSession(tokenHash: string): { username: string; expiresAt: number } | undefined {
    return this.sessionStmt.get(tokenHash) as { username: string; expiresAt: number } | undefined;
  }

  addAdminSession(tokenHash: string, username: string, expiresAt: number): void {
    this.addSessionStmt.run(tokenHash, username, expiresAt);
  }

  endAdminSession(tokenHash: string): void {
    this.endSessionStmt.run(tokenHash);
  }

  /** The administrator's password hash, or undefined for an unknown name. */
  adminHash(username: string): string | undefined {
    return (this.adminStmt.get(username) as { hash: string } | undefined)?.hash;
  }

  anyAdmin(): boolean {
    return this.anyAdminStmt.get() !== undefined;
  }

  /**
   * Creates the administrator or sets its password. A `reset` also signs it out everywhere and
   * forgets every client's failed sign-ins, so no lockout from guessing the old password keeps
   * the new one out (pickup failures stay counted).
   */
  saveAdmin(username: string, hash: string, now: number, reset: boolean): void {
    this.db.transaction(() => {
      this.upsertAdminStmt.run(username, hash, now);
      if (!reset) return;
      this.endSessionsOfStmt.run(username);
      this.clearLoginFailuresStmt.run();
    })();
  }

  /** A new password for an administrator; every session but the one kept ends with it. */
  changeAdminPassword(username: string, hash: string, keepTokenHash: string): void {
    this.db.transaction(() => {
      this.setHashStmt.run(hash, username);
      this.endOtherSessionsStmt.run(keepTokenHash);
    })();
  }

  /** Failed sign-ins of a client after `since`: how many, and the time of the oldest. */
  loginFailures(client: string, since: number): { n: number; first: number | null } {
    return this.loginFailuresStmt.get(client, since) as { n: number; first: number | null };
  }

  /** Records one failed sign-in; returns its row id (so a provisional one can be taken back). */
  addLoginFailure(client: string, now: number): number {
    return Number(this.addLoginFailureStmt.run(client, now).lastInsertRowid);
  }

  dropFailure(rowid: number): void {
    this.dropFailureStmt.run(rowid);
  }
}
