import { MINUTE_S } from "../../contract/time-units.js";
import { DomainError } from "../../domain-errors.js";
import type { IdentityRepo } from "../repos/identity.js";

/** Failed sign-ins allowed per client address within the window. */
export const LOGIN_FAILURES = 5;
export const LOGIN_WINDOW = 15 * MINUTE_S;

/**
 * Refuses (429, with the seconds until the oldest failure leaves the window) a client whose
 * failed sign-ins in the window reached the limit; otherwise counts one more failure now and
 * returns its id. Counted before the (slow) password check and taken back on success
 * (`identity.dropFailure`), so parallel guesses cannot slip past the limit while scrypt runs.
 */
export function countSignInAttempt(identity: IdentityRepo, ip: string, now: number): number {
  const recent = identity.loginFailures(ip, now - LOGIN_WINDOW);
  if (recent.n >= LOGIN_FAILURES) {
    const retry = Math.max(1, (recent.first ?? now) + LOGIN_WINDOW - now);
    throw new DomainError(
      "rate_limited",
      "admin.login_limit",
      "Too many failed sign-ins; try again later",
      { headers: { "Retry-After": String(retry) } },
    );
  }
  return identity.addLoginFailure(ip, now);
}
