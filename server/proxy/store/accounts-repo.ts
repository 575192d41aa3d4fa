import type { Db } from "../../db/open.js";

/** A stored session: the hash of its cookie value, its CSRF token and when it ends. */
export interface SessionRow {
  idHash: string;
  csrf: string;
  expiresAt: number;
}

/**
 * The administrator account, its sessions and the sign-in failures, as stored: every
 * statement is prepared once here; what they mean (lifetimes, limits) lives in auth/.
 */
export class AccountsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
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

  /** Runs `work` in one transaction (nested calls join the outer one). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  passwordHash(): string | null {
    const row = this.stmts.admin.get() as { password_hash: string } | undefined;
    return row?.password_hash ?? null;
  }

  insertAdmin(hash: string, createdAt: number): void {
    this.stmts.createAdmin.run(hash, createdAt);
  }

  setPassword(hash: string): void {
    this.stmts.setPassword.run(hash);
  }

  insertSession(session: SessionRow, createdAt: number): void {
    this.stmts.insertSession.run(session.idHash, session.csrf, createdAt, session.expiresAt);
  }

  session(idHash: string): SessionRow | null {
    const row = this.stmts.session.get(idHash) as
      { id_hash: string; csrf: string; expires_at: number } | undefined;
    return row ? { idHash: row.id_hash, csrf: row.csrf, expiresAt: row.expires_at } : null;
  }

  setCsrf(idHash: string, csrf: string): void {
    this.stmts.setCsrf.run(csrf, idHash);
  }

  deleteSession(idHash: string): void {
    this.stmts.deleteSession.run(idHash);
  }

  deleteOtherSessions(idHash: string): void {
    this.stmts.deleteOthers.run(idHash);
  }

  deleteAllSessions(): void {
    this.stmts.deleteAll.run();
  }

  deleteExpiredSessions(now: number): void {
    this.stmts.deleteExpired.run(now);
  }

  /** Times of this client's failures after `since`, newest first, at most `limit`. */
  recentFailures(ip: string, since: number, limit: number): number[] {
    const rows = this.stmts.failures.all(ip, since, limit) as Array<{ at: number }>;
    return rows.map((r) => r.at);
  }

  addFailure(ip: string, at: number): void {
    this.stmts.addFailure.run(ip, at);
  }

  clearFailures(ip: string): void {
    this.stmts.clearFailures.run(ip);
  }

  clearAllFailures(): void {
    this.stmts.clearAllFailures.run();
  }

  pruneFailures(upTo: number): void {
    this.stmts.pruneFailures.run(upTo);
  }
}
