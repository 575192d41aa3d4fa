import { timingSafeEqual } from "node:crypto";

export { hashPassword, verifyPassword } from "../../password-hash.js";

export const MIN_PASSWORD_BYTES = 12;
export const MAX_PASSWORD_BYTES = 72;

/** Byte length rule of the spec: 12..72 UTF-8 bytes. */
export function passwordProblem(password: string): string | null {
  const bytes = Buffer.byteLength(password, "utf8");
  if (bytes < MIN_PASSWORD_BYTES)
    return `The password must be at least ${MIN_PASSWORD_BYTES} bytes long`;
  if (bytes > MAX_PASSWORD_BYTES)
    return `The password must be at most ${MAX_PASSWORD_BYTES} bytes long`;
  return null;
}

/** Constant-time string comparison for tokens. */
export function tokensEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  if (ab.length !== bb.length || ab.length === 0) return false;
  return timingSafeEqual(ab, bb);
}
