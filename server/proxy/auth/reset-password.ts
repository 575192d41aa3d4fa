import { randomBytes } from "node:crypto";
import type { Clock } from "../../clock.js";
import type { Db } from "../../db/open.js";
import { Accounts } from "./accounts.js";
import { hashPassword } from "./passwords.js";

/**
 * `--reset-proxy-password`: gives the console a new generated password (16 characters, well
 * inside the 12–72 byte rule), signs out every session and lifts any sign-in lockout. Answers
 * the password, to be shown once; null while the console is not set up yet (the setup token
 * printed at start does that job then).
 */
export async function resetConsolePassword(
  db: Db,
  clock: Clock,
  log: (line: string) => void,
): Promise<string | null> {
  const accounts = new Accounts(db, clock);
  if (!accounts.initialized()) {
    log("The proxy console password was not reset: the console is not set up yet");
    return null;
  }
  const password = randomBytes(12).toString("base64url");
  accounts.resetPassword(await hashPassword(password));
  log("The proxy console password was reset from the command line; every session was signed out");
  return password;
}
