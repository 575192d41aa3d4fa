import { MINUTE_S } from "../../contract/time-units.js";
import { DomainError } from "../../domain-errors.js";
import type { Actor, ParcelDomain } from "./ports.js";
import type { ParcelRow } from "../repos/parcels.js";
import { normalizeCode } from "./codes.js";
import { signPickup, verifyPickup, type PickupGrant } from "./pickup-cookie.js";
import { PasswordQueueFull, verifyPassword } from "../../password-hash.js";
import { codeHash } from "./share.js";
import { liveInbox } from "./inbox.js";

/** A pickup grant (the `pt_pickup` cookie) lasts 10 minutes. */
export const PICKUP_TTL = 10 * MINUTE_S;

/** Who is picking up, as the HTTP layer read it from the request. */
export interface PickupCaller {
  ip: string;
  /** The visitor behind a cookie, else anonymous (for the audit log). */
  actor: Actor;
  /** The value of the caller's pickup cookie, if any. */
  pickupCookie: string | undefined;
}

/** The window of the pickup failure limits, per client and service-wide (10 minutes). */
export const PICKUP_FAILURE_WINDOW = 10 * MINUTE_S;

/**
 * Failed pickups (unknown codes, wrong passwords) of all clients together per window. Past it
 * only clients that already hold a pickup cookie get through: guessing from many addresses at
 * once stops, and recipients in the middle of a pickup are not locked out.
 */
export const PICKUP_SERVICE_BUDGET = 200;

/** 410 for an ended parcel, 423 for one in review; nothing for a published one. */
export function stateError(p: Pick<ParcelRow, "state">): DomainError | null {
  switch (p.state) {
    case "expired":
      return new DomainError("gone", "parcel.expired", "This parcel has expired");
    case "exhausted":
      return new DomainError("gone", "parcel.exhausted", "This parcel has no downloads left");
    case "revoked":
      return new DomainError("gone", "parcel.revoked", "This parcel has been withdrawn");
    case "review":
      return new DomainError(
        "locked",
        "parcel.locked",
        "This parcel is locked after too many wrong passwords; the sender can ask the administrator to reissue it",
      );
    case "uploading":
      return new DomainError("not_found", "pickup.code_unknown", "No parcel has this code");
    default:
      return null;
  }
}

/**
 * 429 when the client's pickup failures over the last 10 minutes reached the current
 * `pickup_failures_per_ip`; Retry-After is when enough of them have aged out of the window.
 */
export function checkFailureLimit(ctx: ParcelDomain, ip: string): void {
  const now = ctx.now();
  const limit = ctx.policy().pickup_failures_per_ip;
  const times = ctx.repos.pickup.recentFailures(ip, now, PICKUP_FAILURE_WINDOW);
  if (times.length < limit) return;
  const freedAt = times[times.length - limit] + PICKUP_FAILURE_WINDOW;
  throw new DomainError(
    "rate_limited",
    "pickup.too_many",
    "Too many failed pickup attempts from this address; try again later",
    {
      headers: { "Retry-After": String(Math.max(1, freedAt - now)) },
    },
  );
}

/**
 * 429 when every client's pickup failures together over the last 10 minutes reached the
 * service-wide budget, unless this client holds a current pickup cookie (or, for the inbox,
 * says `holds`: a current inbox session). Retry-After is when enough failures have aged out of
 * the window.
 */
export function checkServiceBudget(
  ctx: ParcelDomain,
  pickupCookie: string | undefined,
  budget = PICKUP_SERVICE_BUDGET,
  holds?: boolean,
): void {
  const repo = ctx.repos.pickup;
  const now = ctx.now();
  const count = repo.serviceFailures(now, PICKUP_FAILURE_WINDOW);
  if (count < budget || (holds ?? holdsPickup(ctx, pickupCookie))) return;
  const oldest = repo.serviceFailureTime(now, PICKUP_FAILURE_WINDOW, count - budget) ?? now;
  throw new DomainError(
    "rate_limited",
    "pickup.service_busy",
    "Too many failed pickup attempts on this service; try again later",
    {
      headers: { "Retry-After": String(Math.max(1, oldest + PICKUP_FAILURE_WINDOW - now)) },
    },
  );
}

/** Whether a pickup cookie's value still opens its parcel's current code. */
export function holdsPickup(ctx: ParcelDomain, value: string | undefined): boolean {
  const grant = value ? verifyPickup(ctx.keys.cookie, value, ctx.now()) : null;
  if (!grant) return false;
  const parcel = ctx.repos.parcels.byId(grant.parcelId);
  return parcel !== undefined && parcel.code_gen === grant.codeGen;
}

/**
 * 401 asking for the password. After a wrong one, `attemptsLeft` tells the recipient how many
 * more wrong tries the parcel takes before it locks (0: this one locked it).
 */
const passwordRequired = (message: string, attemptsLeft?: number) =>
  attemptsLeft === undefined
    ? new DomainError("unauthorized", "pickup.password_required", message, {
        extra: { password_required: true },
      })
    : new DomainError("unauthorized", "pickup.password_wrong", message, {
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
  ctx: ParcelDomain,
  caller: PickupCaller,
  input: { code: string; password?: string | null },
): Promise<ParcelRow> {
  const repo = ctx.repos.pickup;
  const { ip, actor } = caller;
  checkFailureLimit(ctx, ip);
  checkServiceBudget(ctx, caller.pickupCookie);
  const plain = normalizeCode(input.code);
  const hash = plain === null ? null : codeHash(ctx, plain);
  const found = hash === null ? undefined : repo.findByCodeHash(hash);
  if (!found || found.state === "uploading") {
    if (hash !== null) inboxCodeInstead(ctx, hash);
    repo.addFailure(ip, ctx.now());
    ctx.audit(actor, "pickup.deny", "system", ip, { reason: "unknown_code" });
    throw new DomainError("not_found", "pickup.code_unknown", "No parcel has this code");
  }
  const target = `parcel:${found.id}`;
  const early = stateError(found);
  if (early) {
    ctx.audit(actor, "pickup.deny", target, ip, { reason: found.state });
    throw early;
  }
  let p = found;
  if (found.password_hash !== null) {
    const password = input.password ?? "";
    if (password === "") throw passwordRequired("This parcel needs a password");
    // Counted before the (slow) check and taken back when it succeeds, so parallel guesses
    // cannot slip past the limit while scrypt runs.
    const pending = repo.addFailure(ip, ctx.now());
    const ok = await checkPickupPassword(password, found.password_hash, () =>
      repo.dropFailure(pending),
    );
    if (!ok) {
      const attempts = ctx.policy().password_attempts;
      const locked = repo.wrongPassword(found.id, attempts);
      ctx.audit(actor, "pickup.deny", target, ip, { reason: "wrong_password" });
      if (locked) {
        ctx.audit(actor, "parcel.lock", target, ip, { reason: "wrong_passwords" });
        // The sender cannot share it again until the administrator reissues it: said once.
        const files = ctx.repos.parcels.files(found.id);
        ctx.log.warn("pickup.parcel_locked", "A parcel was locked after wrong passwords", {
          params: { name: files[0]?.name ?? "", attempts, files: files.length },
        });
      }
      // Read after counting: parallel guesses on the same parcel are included.
      const wrong = ctx.repos.parcels.byId(found.id)?.wrong_passwords ?? attempts;
      throw passwordRequired("Wrong password", Math.max(0, attempts - wrong));
    }
    repo.dropFailure(pending);
    // The parcel may have changed while scrypt ran (locked by a parallel guess, new code).
    const now = ctx.repos.parcels.byId(found.id);
    if (!now || now.code_hash !== hash)
      throw new DomainError("not_found", "pickup.code_unknown", "No parcel has this code");
    const late = stateError(now);
    if (late) {
      ctx.audit(actor, "pickup.deny", target, ip, { reason: now.state });
      throw late;
    }
    p = now;
  }
  return p;
}

/**
 * A code that is no parcel's but the open inbox's: said as such (404, `pickup.inbox_code`, with
 * the computer's name), so the pickup page can send the visitor on to the inbox's send page.
 * Not counted as a failure, exactly as `POST /inbox/resolve` counts no failure for this code:
 * it tells nothing that route does not already tell, and a wrong code still counts.
 */
function inboxCodeInstead(ctx: ParcelDomain, hash: string): void {
  const inbox = liveInbox(ctx);
  if (inbox === null || inbox.code_hash !== hash) return;
  throw new DomainError(
    "not_found",
    "pickup.inbox_code",
    "This is an inbox code: it sends files to this computer",
    {
      params: { name: ctx.computerName() },
    },
  );
}

/**
 * The password check of a pickup, in the pickup lane of the password hashing (behind account
 * sign-ins). When too many recipients are already waiting for theirs, this one is refused at
 * once (429, try again in a second) and `notAGuess` takes back the failure counted for it.
 */
async function checkPickupPassword(
  password: string,
  stored: string,
  notAGuess: () => void,
): Promise<boolean> {
  try {
    return await verifyPassword(password, stored, "pickup");
  } catch (err) {
    if (!(err instanceof PasswordQueueFull)) throw err;
    notAGuess();
    throw new DomainError(
      "rate_limited",
      "pickup.checks_busy",
      "Many recipients are checking passwords right now; try again in a moment",
      { headers: { "Retry-After": "1" } },
    );
  }
}

/** The value of the 10-minute `pt_pickup` cookie for a resolved parcel. */
export function pickupGrant(ctx: ParcelDomain, p: ParcelRow): string {
  return signPickup(ctx.keys.cookie, {
    parcelId: p.id,
    codeGen: p.code_gen,
    expiresAt: ctx.now() + PICKUP_TTL,
  });
}

/**
 * The parcel behind a valid pickup cookie: 401 without one, when it expired, or when the code
 * it was issued for has been replaced; 404 once the record is cleaned; 410/423 for a parcel
 * that cannot be picked up.
 */
export function grantedParcel(
  ctx: ParcelDomain,
  pickupCookie: string | undefined,
): { parcel: ParcelRow; grant: PickupGrant } {
  const grant = pickupCookie ? verifyPickup(ctx.keys.cookie, pickupCookie, ctx.now()) : null;
  if (!grant)
    throw new DomainError("unauthorized", "pickup.code_first", "Enter the pickup code first");
  const parcel = ctx.repos.parcels.byId(grant.parcelId);
  if (!parcel) throw new DomainError("not_found", "parcel.gone", "This parcel no longer exists");
  if (parcel.code_gen !== grant.codeGen)
    throw new DomainError(
      "unauthorized",
      "pickup.code_changed",
      "The pickup code has changed; enter the new code",
    );
  const err = stateError(parcel);
  if (err) throw err;
  return { parcel, grant };
}
