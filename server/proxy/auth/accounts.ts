import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../../db/open.js";
import type { Clock } from "../../clock.js";

export const SESSION_TTL_MS = 24 * 3600_000;
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const LOGIN_MAX_FAILURES = 5;

export interface Session {
  idHash: string;
  csrf: string;
  expiresAt: number;
}

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** The administrator account, its sessions and the login-failure counter. */
export class Accounts {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.stmts = {
      admin: db.prepare("SELECT password_hash FROM admin WHERE id = 1"),
      createAdmin: db.prepare("INSERT INTO admin (id, password_hash, created_at) VALUES (1, ?, ?)"),
      setPassword: db.prepare("UPDATE admin SET password_hash = ? WHERE id = 1"),
      insertSession: db.prepare(
        "INSERT INTO sessions (id_hash, csrf, created_at, expires_at) VALUES (?, ?, ?, ?)",
      ),
      session: db.prepare("SELECT id_hash, csrf, expires_at FROM sessions WHERE id_hash = ?"),
      setCsrf: db.prepare("UPDATE sessions SET csrf = ? WHERE id_hash = ?"),
      deleteSession: db.prepare("DELETE FROM sessions WHERE id_hash = ?"),
      deleteOthers: db.prepare("DELETE FROM sessions WHERE id_hash != ?"),
      deleteAll: db.prepare("DELETE FROM sessions"),
      clearAllFailures: db.prepare("DELETE FROM login_failures"),
      deleteExpired: db.prepare("DELETE FROM sessions WHERE expires_at <= ?"),
      failures: db.prepare(
        "SELECT at FROM login_failures WHERE ip = ? AND at > ? ORDER BY at DESC LIMIT ?",
      ),
      addFailure: db.prepare("INSERT INTO login_failures (ip, at) VALUES (?, ?)"),
      clearFailures: db.prepare("DELETE FROM login_failures WHERE ip = ?"),
      pruneFailures: db.prepare("DELETE FROM login_failures WHERE at <= ?"),
    };
  }

  initialized(): boolean {
    return this.passwordHash() !== null;
  }

  passwordHash(): string | null {
    const row = this.stmts.admin.get() as { password_hash: string } | undefined;
    return row?.password_hash ?? null;
  }

  /** Creates the administrator; false when one exists already (a concurrent setup won). */
  createAdmin(hash: string): boolean {
    return this.db.transaction(() => {
      if (this.initialized()) return false;
      this.stmts.createAdmin.run(hash, this.clock.now());
      return true;
    })();
  }

  setPassword(hash: string): void {
    this.stmts.setPassword.run(hash);
  }

  /**
   * A password reset by the machine's operator: the new password, no session signed in with
   * the old one, and no sign-in lockout left from guessing it.
   */
  resetPassword(hash: string): void {
    this.db.transaction(() => {
      this.stmts.setPassword.run(hash);
      this.stmts.deleteAll.run();
      this.stmts.clearAllFailures.run();
    })();
  }

  /** Opens a session; answers the cookie value (only its hash is stored) and CSRF token. */
  openSession(): { id: string; csrf: string } {
    const id = randomBytes(32).toString("base64url");
    const csrf = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    this.stmts.deleteExpired.run(now);
    this.stmts.insertSession.run(sha256(id), csrf, now, now + SESSION_TTL_MS);
    return { id, csrf };
  }

  /** The live session for a cookie value, or null (unknown or expired). */
  session(id: string | undefined): Session | null {
    if (!id) return null;
    const row = this.stmts.session.get(sha256(id)) as
      { id_hash: string; csrf: string; expires_at: number } | undefined;
    if (!row || row.expires_at <= this.clock.now()) return null;
    return { idHash: row.id_hash, csrf: row.csrf, expiresAt: row.expires_at };
  }

  /** Whether a session (by its stored hash, what routes see as the session id) is alive. */
  aliveByHash(idHash: string): boolean {
    const row = this.stmts.session.get(idHash) as { expires_at: number } | undefined;
    return !!row && row.expires_at > this.clock.now();
  }

  closeSession(idHash: string): void {
    this.stmts.deleteSession.run(idHash);
  }

  /** Keeps only this session, with a fresh CSRF token (after a password change). */
  keepOnly(idHash: string): string {
    const csrf = randomBytes(32).toString("base64url");
    this.db.transaction(() => {
      this.stmts.deleteOthers.run(idHash);
      this.stmts.setCsrf.run(csrf, idHash);
    })();
    return csrf;
  }

  /**
   * Counts a sign-in attempt of this client before its password is checked, so parallel
   * guesses cannot slip past the limit while the slow hash runs (a success takes it back).
   * Answers 0 when the attempt may go ahead, else the seconds this client has to wait.
   */
  beginLoginAttempt(ip: string): number {
    return this.db.transaction(() => {
      const now = this.clock.now();
      const recent = this.stmts.failures.all(
        ip,
        now - LOGIN_WINDOW_MS,
        LOGIN_MAX_FAILURES,
      ) as Array<{ at: number }>;
      if (recent.length >= LOGIN_MAX_FAILURES) {
        const oldest = recent[recent.length - 1].at;
        return Math.max(1, Math.ceil((oldest + LOGIN_WINDOW_MS - now) / 1000));
      }
      this.stmts.pruneFailures.run(now - LOGIN_WINDOW_MS);
      this.stmts.addFailure.run(ip, now);
      return 0;
    })();
  }

  /** A successful sign-in: its own attempt is taken back, with the client's earlier failures. */
  clearLoginFailures(ip: string): void {
    this.stmts.clearFailures.run(ip);
  }
}
