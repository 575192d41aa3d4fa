import type { Request, Response } from "express";
import { appendSetCookie, parseCookies, serializeCookie } from "../../http/cookies.js";
import { clientIp } from "../../http/client-ip.js";
import { HttpError } from "../../http/errors.js";
import type { Actor, ParcelContext } from "../context.js";
import { randomId, randomToken, sha256Hex } from "../domain/secrets.js";
import { issuedFor } from "../domain/manage-token.js";
import { HOUR_S, WEEK_S } from "../../contract/time-units.js";
import { PICKUP_TTL, type PickupCaller } from "../domain/pickup.js";

export const VISITOR_COOKIE = "pt_visitor";
export const PICKUP_COOKIE = "pt_pickup";
export const ADMIN_COOKIE = "pt_admin";
/** A sender's way into the inbox (10 minutes, bound to the inbox's current code). */
export const INBOX_COOKIE = "inbox_session";
export const VISITOR_TTL = WEEK_S;
export { PICKUP_TTL };
export const ADMIN_TTL = 8 * HOUR_S;

export { clientIp };

/**
 * Cookie name for this request: when HTTP and HTTPS entries coexist, cookies set over HTTP
 * carry `_http`; over HTTPS the base name is kept and the cookie is Secure.
 */
export function cookieSpec(
  ctx: ParcelContext,
  req: Request,
  base: string,
): { name: string; secure: boolean } {
  const https = ctx.entryFor(req).protocol === "https:";
  if (https) return { name: base, secure: true };
  return { name: ctx.entries.mixed ? `${base}_http` : base, secure: false };
}

export function readCookie(ctx: ParcelContext, req: Request, base: string): string | undefined {
  return parseCookies(req.get("cookie")).get(cookieSpec(ctx, req, base).name);
}

export function setCookie(
  ctx: ParcelContext,
  req: Request,
  res: Response,
  base: string,
  value: string,
  ttl: number,
): void {
  const { name, secure } = cookieSpec(ctx, req, base);
  appendSetCookie(res, serializeCookie(name, value, { maxAgeSeconds: ttl, secure }));
}

export function clearCookie(ctx: ParcelContext, req: Request, res: Response, base: string): void {
  setCookie(ctx, req, res, base, "", 0);
}

/** The visitor id behind a valid, unexpired `pt_visitor` cookie, or null. */
export function currentVisitor(
  ctx: ParcelContext,
  req: Request,
): { id: string; expiresAt: number } | null {
  const value = readCookie(ctx, req, VISITOR_COOKIE);
  if (!value) return null;
  const row = ctx.repos.identity.visitor(sha256Hex(value));
  if (!row || row.expiresAt <= ctx.now()) return null;
  return row;
}

/** Starts a new 7-day visitor identity and sets its cookie. */
export function startVisitor(
  ctx: ParcelContext,
  req: Request,
  res: Response,
): { id: string; expiresAt: number } {
  const id = randomId();
  const cookie = randomToken();
  const expiresAt = ctx.now() + VISITOR_TTL;
  ctx.repos.identity.addVisitor(id, sha256Hex(cookie), expiresAt);
  setCookie(ctx, req, res, VISITOR_COOKIE, cookie, VISITOR_TTL);
  return { id, expiresAt };
}

/** `Authorization: Bearer <token>` value, if any. */
export function bearerToken(req: Request): string | undefined {
  const h = req.get("authorization");
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  if (!m)
    throw new HttpError(
      401,
      "auth.bearer_format",
      "The Authorization header must be a Bearer token",
    );
  return m[1];
}

/** The signed-in administrator's username, or null. */
export function currentAdmin(ctx: ParcelContext, req: Request): string | null {
  const value = readCookie(ctx, req, ADMIN_COOKIE);
  if (!value) return null;
  const row = ctx.repos.identity.adminSession(sha256Hex(value));
  if (!row || row.expiresAt <= ctx.now()) return null;
  return row.username;
}

export function requireAdmin(ctx: ParcelContext, req: Request): Actor & { kind: "admin" } {
  const username = currentAdmin(ctx, req);
  if (!username)
    throw new HttpError(401, "admin.sign_in_required", "Administrator sign-in required");
  return { kind: "admin", username };
}

/** Audit `source`: `<actor>@<client ip>`; visitors appear as 8 hex chars of a hash of their id. */
export function auditSource(actor: Actor, ip: string): string {
  switch (actor.kind) {
    case "admin":
      return `admin:${actor.username}@${ip}`;
    case "visitor":
      return `visitor:${sha256Hex(actor.id).slice(0, 8)}@${ip}`;
    case "token":
      return `token@${ip}`;
    default:
      return `anonymous@${ip}`;
  }
}

/**
 * Resolves the caller's right to manage a parcel: a Bearer manage_token, or the visitor cookie
 * of the parcel's owner. The credential is judged before the id, so an unknown id tells nothing
 * to a caller without one: 401 without a valid credential (a Bearer token that matches no
 * parcel, an unknown or expired visitor cookie, none at all); then 404 for an unknown id; 403
 * for a valid credential of another owner. A presented Bearer token decides alone; one issued
 * for this very id still counts as valid after cleanup removed the parcel (404).
 */
export function requireOwner(ctx: ParcelContext, req: Request, parcelId: string): Actor {
  return ownerOf(ctx, req, parcelId).actor;
}

/**
 * requireOwner, also answering the manage token when the request carried the parcel's own
 * (null otherwise). The actor is the browser (its visitor) whenever the request carries the
 * owner's visitor cookie, with or without the token: the send page presents both, and its
 * actions are a browser's, not a script's.
 */
export function ownerOf(
  ctx: ParcelContext,
  req: Request,
  parcelId: string,
): { actor: Actor; token: string | null } {
  const row = ctx.repos.sessions.owner(parcelId);
  const token = bearerToken(req);
  if (token !== undefined) {
    const hash = sha256Hex(token);
    if (row && hash === row.tokenHash) {
      const visitor = row.owner === null ? null : currentVisitor(ctx, req);
      const actor: Actor =
        visitor && visitor.id === row.owner
          ? { kind: "visitor", id: visitor.id }
          : { kind: "token" };
      return { actor, token };
    }
    // The owner's own token of a parcel whose record cleanup removed: it is gone, not foreign.
    if (!row && issuedFor(ctx.keys.cookie, token, parcelId))
      throw new HttpError(404, "parcel.not_found", "No such parcel");
    if (!ctx.repos.sessions.tokenKnown(hash))
      throw new HttpError(401, "owner.token_invalid", "This manage token is not valid");
    if (!row) throw new HttpError(404, "parcel.not_found", "No such parcel");
    throw new HttpError(403, "owner.token_other", "This manage token belongs to another parcel");
  }
  const visitor = currentVisitor(ctx, req);
  if (!visitor)
    throw new HttpError(
      401,
      "owner.credential_required",
      "A visitor cookie or a manage token is required",
    );
  if (!row) throw new HttpError(404, "parcel.not_found", "No such parcel");
  if (row.owner !== visitor.id)
    throw new HttpError(403, "owner.not_yours", "This parcel belongs to someone else");
  return { actor: { kind: "visitor", id: visitor.id }, token: null };
}

/** Who is picking up, for the audit log: the visitor behind a cookie, else anonymous. */
export function pickupActor(ctx: ParcelContext, req: Request): Actor {
  const visitor = currentVisitor(ctx, req);
  return visitor ? { kind: "visitor", id: visitor.id } : { kind: "anonymous" };
}

/** The pickup domain's view of a request: address, actor and pickup cookie. */
export function pickupCaller(ctx: ParcelContext, req: Request): PickupCaller {
  return {
    ip: clientIp(req),
    actor: pickupActor(ctx, req),
    pickupCookie: readCookie(ctx, req, PICKUP_COOKIE),
  };
}
