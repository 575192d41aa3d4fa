import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../../clock.js";
import type { AccountsRepo } from "../store/accounts-repo.js";
import { DAY_MS, MINUTE_MS } from "../../contract/time-units.js";

export const SESSION_TTL_MS = DAY_MS;
export const LOGIN_WINDOW_MS = 15 * MINUTE_MS;
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
  constructor(
    private readonly repo: AccountsRepo,
    private readonly clock: Clock,
  ) {}

  initialized(): boolean {
    return this.passwordHash() !== null;
  }

  passwordHash(): string | null {
    return this.repo.passwordHash();
  }

  /** Creates the administrator; false when one exists already (a concurrent setup won). */
  createAdmin(hash: string): boolean {
    return this.repo.transaction(() => {
      if (this.initialized()) return false;
      this.repo.insertAdmin(hash, this.clock.now());
      return true;
    });
  }

  setPassword(hash: string): void {
    this.repo.setPassword(hash);
  }

  /**
   * A password reset by the machine's operator: the new password, no session signed in with
   * the old one, and no sign-in lockout left from guessing it.
   */
  resetPassword(hash: string): void {
    this.repo.transaction(() => {
      this.repo.setPassword(hash);
      this.repo.deleteAllSessions();
      this.repo.clearAllFailures();
    });
  }

  /** Opens a session; answers the cookie value (only its hash is stored) and CSRF token. */
  openSession(): { id: string; csrf: string } {
    const id = randomBytes(32).toString("base64url");
    const csrf = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    this.repo.deleteExpiredSessions(now);
    this.repo.insertSession({ idHash: sha256(id), csrf, expiresAt: now + SESSION_TTL_MS }, now);
    return { id, csrf };
  }

  /** The live session for a cookie value, or null (unknown or expired). */
  session(id: string | undefined): Session | null {
    if (!id) return null;
    const row = this.repo.session(sha256(id));
    if (!row || row.expiresAt <= this.clock.now()) return null;
    return row;
  }

  /** Whether a session (by its stored hash, what routes see as the session id) is alive. */
  aliveByHash(idHash: string): boolean {
    const row = this.repo.session(idHash);
    return !!row && row.expiresAt > this.clock.now();
  }

  closeSession(idHash: string): void {
    this.repo.deleteSession(idHash);
  }

  /** Keeps only this session, with a fresh CSRF token (after a password change). */
  keepOnly(idHash: string): string {
    const csrf = randomBytes(32).toString("base64url");
    this.repo.transaction(() => {
      this.repo.deleteOtherSessions(idHash);
      this.repo.setCsrf(idHash, csrf);
    });
    return csrf;
  }

  /** The seconds this client must wait before its next sign-in attempt (0: it may try now). */
  loginBlockedFor(ip: string): number {
    const now = this.clock.now();
    const recent = this.repo.recentFailures(ip, now - LOGIN_WINDOW_MS, LOGIN_MAX_FAILURES);
    if (recent.length < LOGIN_MAX_FAILURES) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - 1] + LOGIN_WINDOW_MS - now) / 1000));
  }

  /**
   * Counts a sign-in attempt of this client before its password is checked, so parallel
   * guesses cannot slip past the limit while the slow hash runs (a success takes it back).
   * Answers 0 when the attempt may go ahead, else the seconds this client has to wait.
   */
  beginLoginAttempt(ip: string): number {
    return this.repo.transaction(() => {
      const now = this.clock.now();
      const recent = this.repo.recentFailures(ip, now - LOGIN_WINDOW_MS, LOGIN_MAX_FAILURES);
      if (recent.length >= LOGIN_MAX_FAILURES) {
        const oldest = recent[recent.length - 1];
        return Math.max(1, Math.ceil((oldest + LOGIN_WINDOW_MS - now) / 1000));
      }
      this.repo.pruneFailures(now - LOGIN_WINDOW_MS);
      this.repo.addFailure(ip, now);
      return 0;
    });
  }

  /** A successful sign-in: its own attempt is taken back, with the client's earlier failures. */
  clearLoginFailures(ip: string): void {
    this.repo.clearFailures(ip);
  }
}
