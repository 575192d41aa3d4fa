import { createHmac, timingSafeEqual } from "node:crypto";
import type { InboxGrant } from "../../contract/parcel-inbox.js";
import { MINUTE_S } from "../../contract/time-units.js";
import { DomainError } from "../../domain-errors.js";
import { PasswordQueueFull, verifyPassword } from "../../password-hash.js";
import type { Actor, ParcelDomain } from "./ports.js";
import { normalizeCode } from "./codes.js";
import { liveInbox } from "./inbox.js";
import { checkFailureLimit, checkServiceBudget, holdsPickup } from "./pickup.js";
import { codeHash } from "./share.js";

/**
 * A sender's way into the inbox: `POST /inbox/resolve` checks the code (and password) and
 * gives a 10-minute `inbox_session` cookie; `POST /uploads` with `"inbox": true` needs it.
 * Wrong codes and passwords count in the pickup guessing limits (per client and service-wide),
 * since both are the same kind of guess.
 */

/** An inbox session lasts 10 minutes (never past the inbox's closing). */
export const INBOX_SESSION_TTL = 10 * MINUTE_S;

/** Who opens the inbox, as the HTTP layer read it from the request. */
export interface InboxCaller {
  ip: string;
  actor: Actor;
  /** The caller's inbox session and pickup cookies: holders pass the service-wide budget. */
  inboxCookie: string | undefined;
  pickupCookie: string | undefined;
}

interface SessionGrant {
  gen: number;
  expiresAt: number;
}

function mac(key: Buffer, g: SessionGrant): Buffer {
  return createHmac("sha256", key).update(`inbox\n${g.gen}\n${g.expiresAt}`).digest();
}

/** The cookie value: `<gen>.<expires>.<mac>`, bound to the inbox's code generation. */
function signSession(key: Buffer, g: SessionGrant): string {
  return `${g.gen}.${g.expiresAt}.${mac(key, g).toString("base64url")}`;
}

const SHAPE = /^(\d{1,12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Whether a cookie value is a current session: signed by this service, not expired, and of the
 * code now open (a closed or reopened inbox ends its sessions at once).
 */
export function validInboxSession(ctx: ParcelDomain, value: string | undefined): boolean {
  const m = value ? SHAPE.exec(value) : null;
  if (!m) return false;
  const grant = { gen: Number(m[1]), expiresAt: Number(m[2]) };
  const given = Buffer.from(m[3], "base64url");
  const expected = mac(ctx.keys.cookie, grant);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  if (grant.expiresAt <= ctx.now()) return false;
  const row = liveInbox(ctx);
  return row !== null && row.code_gen === grant.gen;
}

/** 403 unless the request carries a current inbox session. */
export function requireInboxSession(ctx: ParcelDomain, value: string | undefined): void {
  if (!validInboxSession(ctx, value))
    throw new DomainError(
      "forbidden",
      "inbox.session_required",
      "Open the inbox with its code first (or again: the inbox closed or has a new code)",
    );
}

/** The computer's name as senders see it. */
export function computerName(ctx: ParcelDomain): string {
  return ctx.computerName();
}

const passwordRefusal = (wrong: boolean) =>
  wrong
    ? new DomainError("forbidden", "inbox.password_wrong", "Wrong inbox password", {
        extra: { password_required: true },
      })
    : new DomainError("forbidden", "inbox.password_required", "This inbox needs its password", {
        extra: { password_required: true },
      });

/**
 * `POST /inbox/resolve`: checks the limits, then the code (an unknown or closed one counts as a
 * failure, 404), then the password (a wrong one counts, 403; a missing one, the normal first
 * step, does not). Failures are recorded before the slow password check, so parallel guesses
 * cannot slip past the limits. Answers what the sender may send and the session cookie's value.
 */
export async function resolveInbox(
  ctx: ParcelDomain,
  caller: InboxCaller,
  input: { code: string; password?: string | null },
): Promise<{ grant: InboxGrant; session: string }> {
  const repo = ctx.repos.pickup;
  const { ip, actor } = caller;
  checkFailureLimit(ctx, ip);
  checkServiceBudget(
    ctx,
    caller.pickupCookie,
    undefined,
    validInboxSession(ctx, caller.inboxCookie) || holdsPickup(ctx, caller.pickupCookie),
  );
  const plain = normalizeCode(input.code);
  const hash = plain === null ? null : codeHash(ctx, plain);
  const row = liveInbox(ctx);
  if (!row || hash === null || hash !== row.code_hash) {
    repo.addFailure(ip, ctx.now());
    ctx.audit(actor, "inbox.deny", "system", ip, { reason: "unknown_code" });
    throw new DomainError("not_found", "inbox.code_unknown", "No open inbox has this code");
  }
  if (row.password_hash !== null) {
    const password = input.password ?? "";
    if (password === "") throw passwordRefusal(false);
    const pending = repo.addFailure(ip, ctx.now());
    let ok: boolean;
    try {
      ok = await verifyPassword(password, row.password_hash, "pickup");
    } catch (err) {
      if (!(err instanceof PasswordQueueFull)) throw err;
      repo.dropFailure(pending);
      throw new DomainError(
        "rate_limited",
        "pickup.checks_busy",
        "Many recipients are checking passwords right now; try again in a moment",
        { headers: { "Retry-After": "1" } },
      );
    }
    if (!ok) {
      ctx.audit(actor, "inbox.deny", "system", ip, { reason: "wrong_password" });
      throw passwordRefusal(true);
    }
    repo.dropFailure(pending);
  }
  // The inbox may have closed or changed its code while the password was checked.
  const now = liveInbox(ctx);
  if (!now || now.code_gen !== row.code_gen || now.closes_at === null)
    throw new DomainError("not_found", "inbox.code_unknown", "No open inbox has this code");
  ctx.audit(actor, "inbox.resolve", "system", ip);
  const policy = ctx.policy();
  const expiresAt = Math.min(ctx.now() + INBOX_SESSION_TTL, now.closes_at);
  return {
    grant: {
      name: computerName(ctx),
      closes_at: now.closes_at,
      max_files: policy.max_files,
      max_file_bytes: policy.max_file_bytes,
      max_parcel_bytes: policy.max_parcel_bytes,
    },
    session: signSession(ctx.keys.cookie, { gen: now.code_gen, expiresAt }),
  };
}
