import { timingSafeEqual } from "node:crypto";

export {
  hashPassword,
  verifyPassword,
  MIN_PASSWORD_BYTES,
  MAX_PASSWORD_BYTES,
  passwordProblem,
} from "../../password-hash.js";

/** Constant-time string comparison for tokens. */
export function tokensEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  if (ab.length !== bb.length || ab.length === 0) return false;
  return timingSafeEqual(ab, bb);
}
