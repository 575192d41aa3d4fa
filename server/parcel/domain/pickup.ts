import type { Request, Response } from "express";
import { HttpError } from "../../http/errors.js";
import type { Actor, ParcelContext } from "../context.js";
import {
  clientIp,
  currentVisitor,
  PICKUP_COOKIE,
  PICKUP_TTL,
  readCookie,
  setCookie,
} from "../http/identity.js";
import { getParcel, type ParcelRow } from "../repos/parcels.js";
import type { PickupRepo } from "../repos/pickup.js";
import { normalizeCode } from "./codes.js";
import { signPickup, verifyPickup, type PickupGrant } from "./pickup-cookie.js";
import { verifyPassword } from "./secrets.js";
import { codeHash } from "./share.js";

/** The window of the pickup failure limits, per client and service-wide (10 minutes). */
export const PICKUP_FAILURE_WINDOW = 600;

/**
 * Failed pickups (unknown codes, wrong passwords) of all clients together per window. Past it
 * only clients that already hold a pickup cookie get through: guessing from many addresses at
 * once stops, and recipients in the middle of a pickup are not locked out.
 */
export const PICKUP_SERVICE_BUDGET = 200;

/** Who is picking up, for the audit log: the visitor behind a cookie, else anonymous. */
export function pickupActor(ctx: ParcelContext, req: Request): Actor {
  const visitor = currentVisitor(ctx, req);
  return visitor ? { kind: "visitor", id: visitor.id } : { kind: "anonymous" };
}

/** 410 for an ended parcel, 423 for one in review; nothing for a published one. */
export function stateError(p: Pick<ParcelRow, "state">): HttpError | null {
  switch (p.state) {
    case "expired":
      return new HttpError(410, "parcel.expired", "This parcel has expired");
    case "exhausted":
      return new HttpError(410, "parcel.exhausted", "This parcel has no downloads left");
    case "revoked":
      return new HttpError(410, "parcel.revoked", "This parcel has been withdrawn");
    case "review":
      return new HttpError(
        423,
        "parcel.locked",
        "This parcel is locked after too many wrong passwords; the sender can ask the administrator to reissue it",
      );
    case "uploading":
      return new HttpError(404, "pickup.code_unknown", "No parcel has this code");
    default:
      return null;
  }
}

/**
 * 429 when the client's pickup failures over the last 10 minutes reached the current
 * `pickup_failures_per_ip`; Retry-After is when enough of them have aged out of the window.
 */
export function checkFailureLimit(ctx: ParcelContext, repo: PickupRepo, ip: string): void {
  const now = ctx.now();
  const limit = ctx.policy().pickup_failures_per_ip;
  const times = repo.recentFailures(ip, now, PICKUP_FAILURE_WINDOW);
  if (times.length < limit) return;
  const freedAt = times[times.length - limit] + PICKUP_FAILURE_WINDOW;
  throw new HttpError(
    429,
    "pickup.too_many",
    "Too many failed pickup attempts from this address; try again later",
    {
      headers: { "Retry-After": String(Math.max(1, freedAt - now)) },
    },
  );
}

/**
 * 429 when every client's pickup failures together over the last 10 minutes reached the
 * service-wide budget, unless this client holds a current pickup cookie. Retry-After is when
 * enough failures have aged out of the window.
 */
export function checkServiceBudget(
  ctx: ParcelContext,
  repo: PickupRepo,
  req: Request,
  budget = PICKUP_SERVICE_BUDGET,
): void {
  const now = ctx.now();
  const count = repo.serviceFailures(now, PICKUP_FAILURE_WINDOW);
  if (count < budget || holdsPickup(ctx, req)) return;
  const oldest = repo.serviceFailureTime(now, PICKUP_FAILURE_WINDOW, count - budget) ?? now;
  throw new HttpError(
    429,
    "pickup.service_busy",
    "Too many failed pickup attempts on this service; try again later",
    {
      headers: { "Retry-After": String(Math.max(1, oldest + PICKUP_FAILURE_WINDOW - now)) },
    },
  );
}

/** Whether the request carries a pickup cookie that still opens its parcel's current code. */
function holdsPickup(ctx: ParcelContext, req: Request): boolean {
  const value = readCookie(ctx, req, PICKUP_COOKIE);
  const grant = value ? verifyPickup(ctx.keys.cookie, value, ctx.now()) : null;
  if (!grant) return false;
  const parcel = getParcel(ctx.db, grant.parcelId);
  return parcel !== undefined && parcel.code_gen === grant.codeGen;
}

/**
 * 401 asking for the password. After a wrong one, `attemptsLeft` tells the recipient how many
 * more wrong tries the parcel takes before it locks (0: this one locked it).
 */
const passwordRequired = (message: string, attemptsLeft?: number) =>
  attemptsLeft === undefined
    ? new HttpError(401, "pickup.password_required", message, {
        extra: { password_required: true },
      })
    : new HttpError(401, "pickup.password_wrong", message, {
        params: { attempts_left: attemptsLeft },
        extra: { password_required: true, attempts_left: attemptsLeft },
      });

/**
 * `POST /pickup/resolve`: finds the parcel behind a code and checks its password. Unknown
 * codes and wrong non-empty passwords count toward the client's limit and the service-wide
 * budget (a missing password does not); both are checked and a failure is recorded before
 * the slow password check, so parallel guesses cannot slip past them. Wrong passwords also
 * count per parcel, and the one that reaches `password_attempts` locks the parcel (`review`).
 * Returns the parcel as it now stands.
 */
export async function resolvePickup(
  ctx: ParcelContext,
  repo: PickupRepo,
  req: Request,
  input: { code: string; password?: string | null },
): Promise<ParcelRow> {
  const ip = clientIp(req);
  const actor = pickupActor(ctx, req);
  checkFailureLimit(ctx, repo, ip);
  checkServiceBudget(ctx, repo, req);
  const plain = normalizeCode(input.code);
  const hash = plain === null ? null : codeHash(ctx, plain);
  const found = hash === null ? undefined : repo.findByCodeHash(hash);
  if (!found || found.state === "uploading") {
    repo.addFailure(ip, ctx.now());
    ctx.audit(req, actor, "pickup.deny", "system", { reason: "unknown_code" });
    throw new HttpError(404, "pickup.code_unknown", "No parcel has this code");
  }
  const target = `parcel:${found.id}`;
  const early = stateError(found);
  if (early) {
    ctx.audit(req, actor, "pickup.deny", target, { reason: found.state });
    throw early;
  }
  let p = found;
  if (found.password_hash !== null) {
    const password = input.password ?? "";
    if (password === "") throw passwordRequired("This parcel needs a password");
    // Counted before the (slow) check and taken back when it succeeds, so parallel guesses
    // cannot slip past the limit while scrypt runs.
    const pending = repo.addFailure(ip, ctx.now());
    const ok = await verifyPassword(password, found.password_hash);
    if (!ok) {
      const attempts = ctx.policy().password_attempts;
      const locked = repo.wrongPassword(found.id, attempts);
      ctx.audit(req, actor, "pickup.deny", target, { reason: "wrong_password" });
      if (locked) ctx.audit(req, actor, "parcel.lock", target, { reason: "wrong_passwords" });
      // Read after counting: parallel guesses on the same parcel are included.
      const wrong = getParcel(ctx.db, found.id)?.wrong_passwords ?? attempts;
      throw passwordRequired("Wrong password", Math.max(0, attempts - wrong));
    }
    repo.dropFailure(pending);
    // The parcel may have changed while scrypt ran (locked by a parallel guess, new code).
    const now = getParcel(ctx.db, found.id);
    if (!now || now.code_hash !== hash)
      throw new HttpError(404, "pickup.code_unknown", "No parcel has this code");
    const late = stateError(now);
    if (late) {
      ctx.audit(req, actor, "pickup.deny", target, { reason: now.state });
      throw late;
    }
    p = now;
  }
  return p;
}

/** Sets the 10-minute `pt_pickup` cookie for a resolved parcel. */
export function grantPickup(ctx: ParcelContext, req: Request, res: Response, p: ParcelRow): void {
  const value = signPickup(ctx.keys.cookie, {
    parcelId: p.id,
    codeGen: p.code_gen,
    expiresAt: ctx.now() + PICKUP_TTL,
  });
  setCookie(ctx, req, res, PICKUP_COOKIE, value, PICKUP_TTL);
}

/**
 * The parcel behind a valid pickup cookie: 401 without one, when it expired, or when the code
 * it was issued for has been replaced; 404 once the record is cleaned; 410/423 for a parcel
 * that cannot be picked up.
 */
export function grantedParcel(
  ctx: ParcelContext,
  req: Request,
): { parcel: ParcelRow; grant: PickupGrant } {
  const value = readCookie(ctx, req, PICKUP_COOKIE);
  const grant = value ? verifyPickup(ctx.keys.cookie, value, ctx.now()) : null;
  if (!grant) throw new HttpError(401, "pickup.code_first", "Enter the pickup code first");
  const parcel = getParcel(ctx.db, grant.parcelId);
  if (!parcel) throw new HttpError(404, "parcel.gone", "This parcel no longer exists");
  if (parcel.code_gen !== grant.codeGen)
    throw new HttpError(
      401,
      "pickup.code_changed",
      "The pickup code has changed; enter the new code",
    );
  const err = stateError(parcel);
  if (err) throw err;
  return { parcel, grant };
}
