import { randomBytes, timingSafeEqual } from "node:crypto";
import { Worker } from "node:worker_threads";

/** scrypt's cost parameters, as stored in every hash (`scrypt$N$r$p$salt$hash`). */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * The accounts' passwords (the parcel administrator, the proxy console): ~30-40 ms of CPU and
 * 16 MiB of memory per hash on a small 2-core gateway. Nothing but the sign-in rate limits stands
 * between a guesser and these, and they open everything, so they keep the full cost.
 */
export const ACCOUNT_COST: Readonly<ScryptCost> = { N: 16384, r: 8, p: 1 };

/**
 * Parcel pickup passwords: 1/8 of the account cost (N 2048, 2 MiB, ~4-5 ms). Online, a guess
 * costs the same whatever the hash: every wrong password counts against the parcel (it locks
 * after `password_attempts`, 5 by default), the client's address and the service-wide budget,
 * all counted before the hash runs. Offline, whoever holds the database also holds the stored
 * files it protects, so the hash only matters for a password used elsewhere too; 2 MiB per
 * guess still makes that memory-hard. At the account cost, a crowd of recipients queued their
 * checks for seconds (`npm run bench:load`: resolve p99 4.8 s on a quiet 2-core machine).
 */
export const PICKUP_COST: Readonly<ScryptCost> = { N: 2048, r: 8, p: 1 };

/** What a hash may ask for when it is checked (a damaged row must not ask for gigabytes). */
const MAXMEM = 64 * 1024 * 1024;

/** Who waits for a hash: account sign-ins go before pickups, whatever the crowd of recipients. */
export type PasswordLane = "account" | "pickup";

/**
 * Pickup checks that may wait at once. Past it a pickup is refused at once (`PasswordQueueFull`,
 * not counted as a guess) instead of waiting longer than a recipient would: at ~5 ms a hash
 * the last of them waits about a second.
 */
export const MAX_PICKUP_WAITING = 256;

/** Thrown (before anything runs) when the pickup lane's waiting line is full. */
export class PasswordQueueFull extends Error {
  constructor() {
    super("Too many password checks are waiting");
  }
}

/**
 * Every hash is computed in one worker thread of its own (password-worker.mjs), one after the
 * other, account sign-ins first. Not on the event loop, and not on libuv's thread pool either,
 * where `crypto.scrypt` runs: that pool's four threads also do every file open, read, write
 * and fsync, so under load the hashes queued behind the transfers' file work, and each one
 * that finished waited for a busy event loop before the next could start (`npm run bench:load`
 * here: ~17 pickup checks a second although one takes ~5 ms). One thread leaves the other
 * processor of a 2-core gateway to the event loop, so requests that need no password keep
 * their latency while recipients queue. The thread starts with the first hash and stops after
 * a minute without one.
 */
const ENTRY = new URL("./password-worker.mjs", import.meta.url);
const IDLE_MS = 60_000;

interface Pending {
  lane: PasswordLane;
  /** The thread computing it (a stopped thread fails only its own jobs). */
  thread: Worker;
  resolve(key: Buffer): void;
  reject(err: Error): void;
}

let worker: Worker | null = null;
let idleTimer: NodeJS.Timeout | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();
let pickupWaiting = 0;
let pickupLimit = MAX_PICKUP_WAITING;

function settle(id: number, outcome: { key: Buffer } | { error: Error }): void {
  const job = pending.get(id);
  if (!job) return;
  pending.delete(id);
  if (job.lane === "pickup") pickupWaiting--;
  if ("key" in outcome) job.resolve(outcome.key);
  else job.reject(outcome.error);
  if (pending.size === 0 && worker) {
    // Idle: the thread no longer keeps the process alive, and stops after a while.
    worker.unref();
    idleTimer = setTimeout(stopWorker, IDLE_MS);
    idleTimer.unref();
  }
}

function stopWorker(): void {
  const w = worker;
  worker = null;
  if (w) void w.terminate();
}

/** The thread, started when needed; a thread that fails fails its jobs and is replaced later. */
function thread(): Worker {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (worker) return worker;
  const w = new Worker(ENTRY);
  w.on("message", (msg: { id: number; key?: Uint8Array; error?: string }) => {
    if (msg.key) settle(msg.id, { key: Buffer.from(msg.key) });
    else settle(msg.id, { error: new Error(msg.error ?? "the password hash failed") });
  });
  const fail = (err: Error): void => {
    if (worker === w) worker = null;
    for (const [id, job] of [...pending]) if (job.thread === w) settle(id, { error: err });
  };
  w.on("error", fail);
  w.on("exit", (code) => fail(new Error(`the password thread stopped (exit code ${code})`)));
  worker = w;
  return w;
}

function derive(
  password: string,
  salt: Buffer,
  length: number,
  cost: ScryptCost,
  lane: PasswordLane,
  bounded: boolean,
): Promise<Buffer> {
  if (bounded && lane === "pickup" && pickupWaiting >= pickupLimit) {
    return Promise.reject(new PasswordQueueFull());
  }
  const w = thread();
  const id = nextId++;
  const result = new Promise<Buffer>((resolve, reject) =>
    pending.set(id, { lane, thread: w, resolve, reject }),
  );
  if (lane === "pickup") pickupWaiting++;
  // Busy: the process waits for the answers.
  w.ref();
  w.postMessage({ id, lane, password, salt, length, cost });
  return result;
}

/** `scrypt$N$r$p$salt$hash` (base64url salt and hash) at `cost`. */
async function hashAt(password: string, cost: ScryptCost, lane: PasswordLane): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, 32, cost, lane, false);
  return ["scrypt", cost.N, cost.r, cost.p, salt, hash]
    .map((part) => (Buffer.isBuffer(part) ? part.toString("base64url") : String(part)))
    .join("$");
}

/** An account's password (parcel administrator, proxy console), at the account cost. */
export function hashPassword(password: string): Promise<string> {
  return hashAt(password, ACCOUNT_COST, "account");
}

/** A parcel's pickup password, at the pickup cost. */
export function hashPickupPassword(password: string): Promise<string> {
  return hashAt(password, PICKUP_COST, "pickup");
}

/** The cost a stored hash names, or null when it is not one this service could have written. */
export function storedCost(stored: string): ScryptCost | null {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map((s) => (/^[1-9]\d{0,7}$/.test(s) ? Number(s) : 0));
  const powerOfTwo = N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || r < 1 || r > 32 || p < 1 || p > 4 || 128 * N * r > MAXMEM / 2) return null;
  return { N, r, p };
}

/**
 * Constant-time check of a password against a stored hash, at the cost the hash names (so
 * hashes made before a cost changed still verify). `lane`: who is waiting (see above).
 * Rejects with `PasswordQueueFull`, before any work, when the pickup lane is full.
 */
export async function verifyPassword(
  password: string,
  stored: string,
  lane: PasswordLane = "account",
): Promise<boolean> {
  const cost = storedCost(stored);
  if (!cost) return false;
  const [, , , , salt, hash] = stored.split("$");
  const expected = Buffer.from(hash, "base64url");
  if (expected.length < 16 || expected.length > 64) return false;
  const key = Buffer.from(salt, "base64url");
  const actual = await derive(password, key, expected.length, cost, lane, true);
  return timingSafeEqual(actual, expected);
}

/** Hashes asked for and not answered yet, in all and of pickups (for tests and diagnostics). */
export function passwordWork(): { pending: number; pickups: number } {
  return { pending: pending.size, pickups: pickupWaiting };
}

/** Tests only: a smaller pickup line, to see it fill up (no argument: back to the default). */
export function limitPickupWaitingForTests(limit = MAX_PICKUP_WAITING): void {
  pickupLimit = limit;
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
