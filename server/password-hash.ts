import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** scrypt cost: ~30 ms of CPU and 16 MiB of memory per hash on a small gateway. */
const PARAMS = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/**
 * scrypt runs on libuv's thread pool (4 threads), the same threads every file open, read,
 * write and fsync waits for. Unbounded, a burst of password checks would hold every thread
 * and stall downloads and uploads behind them; so at most this many run at once and the
 * rest wait their turn here, leaving threads free for file I/O.
 */
const MAX_AT_ONCE = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function derive(
  password: string,
  salt: Buffer,
  length: number,
  params: typeof PARAMS,
): Promise<Buffer> {
  if (running >= MAX_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      scrypt(password, salt, length, params, (err, key) => (err ? reject(err) : resolve(key))),
    );
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** scrypt hash stored as `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, 32, PARAMS);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt, hash]
    .map((part) => (Buffer.isBuffer(part) ? part.toString("base64url") : String(part)))
    .join("$");
}

/** Constant-time check of a password against a `hashPassword` result. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, "base64url");
  if (expected.length === 0) return false;
  const actual = await derive(password, Buffer.from(salt, "base64url"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** How many hashes run and wait right now (for tests and diagnostics). */
export function passwordWork(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}

/** Passwords people choose for either console: 12 to 72 UTF-8 bytes. */
export const MIN_PASSWORD_BYTES = 12;
export const MAX_PASSWORD_BYTES = 72;

/** Why a chosen password is refused, or null when it is fine. */
export function passwordProblem(password: string): string | null {
  const bytes = Buffer.byteLength(password, "utf8");
  if (bytes < MIN_PASSWORD_BYTES)
    return `The password must be at least ${MIN_PASSWORD_BYTES} bytes long`;
  if (bytes > MAX_PASSWORD_BYTES)
    return `The password must be at most ${MAX_PASSWORD_BYTES} bytes long`;
  return null;
}
