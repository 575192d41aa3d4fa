import { randomBytes } from "node:crypto";
import type { IdentityRepo } from "../repos/identity.js";
import { hashPassword } from "./secrets.js";

/**
 * Creates the administrator, or sets its password when one is given. Without one, a first
 * start (or `reset`) generates a password, which is returned to be shown once; a reset
 * password ends every session signed in with the old one. Returns null when nothing was
 * generated.
 */
export async function ensureAdmin(
  identity: IdentityRepo,
  account: { username: string; password?: string; reset?: boolean },
  now: number,
): Promise<string | null> {
  if (account.password) {
    identity.saveAdmin(account.username, await hashPassword(account.password), now, false);
    return null;
  }
  const exists = identity.adminHash(account.username) !== undefined || identity.anyAdmin();
  if (exists && !account.reset) return null;
  const generated = randomBytes(12).toString("base64url");
  identity.saveAdmin(account.username, await hashPassword(generated), now, true);
  return generated;
}
