import { randomBytes } from "node:crypto";
import type { IdentityRepo } from "../repos/identity.js";
import { hashPassword, verifyPassword } from "./secrets.js";

/**
 * Creates the administrator, or sets its password when one is given. Without one, a first
 * start (or `reset`) generates a password, which is returned to be shown once. Returns null
 * when nothing was generated.
 *
 * A reset (the generated password of `reset` on an existing administrator, or a given password
 * that differs from the stored one) ends every session signed in with the old password, lifts
 * any sign-in lockout left from guessing it and writes a line saying so to `log` (never the
 * password). A given password that is already the stored one changes nothing but the hash, so
 * setting it on every start signs no one out.
 */
export async function ensureAdmin(
  identity: IdentityRepo,
  account: { username: string; password?: string; reset?: boolean },
  now: number,
  log: (line: string) => void,
): Promise<string | null> {
  const existing = identity.adminHash(account.username);
  if (account.password) {
    // A new name next to an existing administrator counts too: the lockout is per client,
    // whatever name was guessed, and would keep the new account out as well.
    const changed =
      existing === undefined
        ? identity.anyAdmin()
        : !(await verifyPassword(account.password, existing));
    identity.saveAdmin(account.username, await hashPassword(account.password), now, changed);
    if (changed)
      log(
        "The parcel administrator password was changed by the password given at start; every session was signed out and any sign-in lockout lifted",
      );
    return null;
  }
  const exists = existing !== undefined || identity.anyAdmin();
  if (exists && !account.reset) return null;
  const generated = randomBytes(12).toString("base64url");
  identity.saveAdmin(account.username, await hashPassword(generated), now, true);
  if (exists)
    log(
      "The parcel administrator password was reset from the command line; every session was signed out and any sign-in lockout lifted",
    );
  return generated;
}
