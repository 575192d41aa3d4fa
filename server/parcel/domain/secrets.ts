import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** URL-safe random id: 16 bytes = 128 bits (ids need at least 96). */
export function randomId(bytes = 16): string {
  return randomBytes(bytes).toString("base64url");
}

/** A manage_token, admin session token or cookie value: 256 bits. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function hmacHex(key: Buffer, value: string): string {
  return createHmac("sha256", key).update(value).digest("hex");
}

export function safeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, "hex");
  const bb = Buffer.from(b, "hex");
  return ab.length === bb.length && ab.length > 0 && timingSafeEqual(ab, bb);
}

export { hashPassword, verifyPassword } from "../../password-hash.js";
