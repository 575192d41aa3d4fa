import type { Response } from "express";
import { DomainError } from "../../domain-errors.js";
import { HttpError } from "../../http/errors.js";
import { requestIdOf } from "../../http/request-log.js";
import type { ParcelContext } from "../context.js";
import { LOGIN_FAILURES, LOGIN_WINDOW } from "../domain/admin-sign-in.js";

/**
 * Refusals that last a while (a device blocked from pickups, the whole service's pickup budget
 * used up, a sender's daily allowance gone) are recorded among the recent problems once, when
 * they start: not again for every request refused behind them.
 */
export function noteLastingRefusal(
  ctx: ParcelContext,
  res: Response | null,
  ip: string,
  err: unknown,
): void {
  if (!(err instanceof DomainError) && !(err instanceof HttpError)) return;
  const wait = Number(err.headers["Retry-After"]);
  if (!(wait > 0)) return;
  const until = ctx.clock.now() + wait * 1000;
  const minutes = Math.ceil(wait / 60);
  const requestId = res ? requestIdOf(res) || null : null;
  const { log } = ctx;
  if (err.code === "pickup.too_many" && log.firstTime(`pickup:${ip}`, until))
    log.warn("pickup.client_blocked", "A device was blocked from pickups for a while", {
      requestId,
      params: { minutes },
    });
  else if (err.code === "pickup.service_busy" && log.firstTime("pickup:service", until))
    log.warn("pickup.service_blocked", "Pickups were paused: too many wrong codes", {
      requestId,
      params: { minutes },
    });
  else if (err.code === "upload.daily_limit" && log.firstTime(`upload-allowance:${ip}`, until))
    log.warn("upload.allowance_used", "A sender's daily upload allowance was used up", {
      requestId,
    });
}

/**
 * After a wrong administrator password: when it used up the client's attempts, the block it
 * starts is recorded once (the next attempts are refused with 429 until it ends).
 */
export function noteSignInBlock(ctx: ParcelContext, res: Response, ip: string): void {
  const now = ctx.now();
  const recent = ctx.repos.identity.loginFailures(ip, now - LOGIN_WINDOW);
  if (recent.n < LOGIN_FAILURES) return;
  const wait = Math.max(1, (recent.first ?? now) + LOGIN_WINDOW - now);
  if (!ctx.log.firstTime(`admin-sign-in:${ip}`, ctx.clock.now() + wait * 1000)) return;
  ctx.log.warn("admin.sign_in_blocked", "Administrator sign-in blocked after wrong passwords", {
    requestId: requestIdOf(res) || null,
    params: { attempts: LOGIN_FAILURES, minutes: Math.ceil(wait / 60) },
  });
}
