import { DomainError } from "../../domain-errors.js";
import type { Accounts } from "../auth/accounts.js";
import {
  hashPassword,
  MAX_PASSWORD_BYTES,
  MIN_PASSWORD_BYTES,
  passwordProblem,
  tokensEqual,
  verifyPassword,
} from "../auth/passwords.js";
import type { SetupToken } from "../auth/setup-token.js";

/** A session just opened: the cookie's value (only its hash is stored) and its CSRF token. */
export interface OpenedSession {
  id: string;
  csrf: string;
}

const alreadySetUp = () =>
  new DomainError(
    "invalid",
    "auth.already_set_up",
    "The administrator password has already been set",
  );

/** Refuses a new password that is too short or too long (counted in UTF-8 bytes). */
export function checkNewPassword(password: string): void {
  const problem = passwordProblem(password);
  if (!problem) return;
  throw Buffer.byteLength(password, "utf8") < MIN_PASSWORD_BYTES
    ? new DomainError("invalid", "auth.password_short", problem, {
        params: { min: MIN_PASSWORD_BYTES },
      })
    : new DomainError("invalid", "auth.password_long", problem, {
        params: { max: MAX_PASSWORD_BYTES },
      });
}

/**
 * Counts this attempt before the password is checked; refused (with the seconds to wait)
 * once the client has used up its attempts.
 */
function countAttempt(accounts: Accounts, ip: string): void {
  const retry = accounts.beginLoginAttempt(ip);
  if (retry > 0)
    throw new DomainError(
      "rate_limited",
      "auth.login_limit",
      "Too many failed sign-in attempts; try again later",
      { headers: { "Retry-After": String(retry) } },
    );
}

/**
 * The first setup: the setup token the machine's operator was shown, then the administrator's
 * password; answers the first session. A second setup, also one racing this one, is refused.
 */
export async function setUpConsole(
  accounts: Accounts,
  setupToken: SetupToken,
  given: { token: string; password: string },
): Promise<OpenedSession> {
  if (accounts.initialized()) throw alreadySetUp();
  const expected = setupToken.value;
  if (!expected || !tokensEqual(given.token.trim(), expected))
    throw new DomainError("unauthorized", "auth.setup_token", "The setup token is wrong");
  checkNewPassword(given.password);
  if (!accounts.createAdmin(await hashPassword(given.password))) throw alreadySetUp();
  setupToken.consume();
  return accounts.openSession();
}

/**
 * A sign-in with the console password, counted per client before the hash runs. `onBlocked`
 * hears of the wrong password that used up the client's attempts, with the seconds to wait.
 */
export async function signIn(
  accounts: Accounts,
  ip: string,
  password: string,
  onBlocked: (waitSeconds: number) => void,
): Promise<OpenedSession> {
  const hash = accounts.passwordHash();
  if (!hash)
    throw new DomainError("unauthorized", "auth.not_set_up", "The service has not been set up yet");
  countAttempt(accounts, ip);
  if (!(await verifyPassword(password, hash))) {
    const wait = accounts.loginBlockedFor(ip);
    if (wait > 0) onBlocked(wait);
    throw new DomainError("unauthorized", "auth.password_wrong", "The password is wrong");
  }
  accounts.clearLoginFailures(ip);
  return accounts.openSession();
}

/**
 * A password change from a signed-in session: the current password is checked (counted like
 * a sign-in), every other session ends; answers this session's new CSRF token.
 */
export async function changePassword(
  accounts: Accounts,
  ip: string,
  sessionIdHash: string,
  passwords: { currentPassword: string; password: string },
): Promise<string> {
  countAttempt(accounts, ip);
  const hash = accounts.passwordHash();
  if (!hash || !(await verifyPassword(passwords.currentPassword, hash)))
    throw new DomainError(
      "unauthorized",
      "auth.current_password_wrong",
      "The current password is wrong",
    );
  accounts.clearLoginFailures(ip);
  checkNewPassword(passwords.password);
  accounts.setPassword(await hashPassword(passwords.password));
  return accounts.keepOnly(sessionIdHash);
}
