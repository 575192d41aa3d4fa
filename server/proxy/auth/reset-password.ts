import { randomBytes } from "node:crypto";
import type { Accounts } from "./accounts.js";
import { hashPassword } from "./passwords.js";

/**
 * `--reset-proxy-password`: gives the console a new generated password (16 characters, well
 * inside the 12–72 byte rule), signs out every session and lifts any sign-in lockout. Answers
 * the password, to be shown once; null while the console is not set up yet (the setup token
 * printed at start does that job then).
 */
export async function resetConsolePassword(
  accounts: Accounts,
  log: (line: string) => void,
): Promise<string | null> {
  if (!accounts.initialized()) {
    log("The proxy console password was not reset: the console is not set up yet");
    return null;
  }
  const password = randomBytes(12).toString("base64url");
  accounts.resetPassword(await hashPassword(password));
  log("The proxy console password was reset from the command line; every session was signed out");
  return password;
}
