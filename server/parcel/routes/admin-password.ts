import type { Router } from "express";
import { HttpError } from "../../http/errors.js";
import type { JsonHandler } from "../../http/route-input.js";
import { MAX_PASSWORD_BYTES, MIN_PASSWORD_BYTES, passwordProblem } from "../../password-hash.js";
import type { PARCEL_API } from "../../contract/parcel.js";
import type { ParcelContext } from "../context.js";
import { countSignInAttempt } from "../domain/admin-sign-in.js";
import { hashPassword, sha256Hex, verifyPassword } from "../domain/secrets.js";
import { ADMIN_COOKIE, clientIp, readCookie } from "../http/identity.js";

/**
 * `PUT /admin/password` (behind the administrator's session): a new password for the signed-in
 * administrator, given the current one. Wrong current passwords count as failed sign-ins from
 * that address (counted before the slow check) and are audited (`admin.password_fail`), and
 * every other session of the service ends.
 */
export function adminPasswordRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");
  const { identity } = ctx.repos;

  const change: JsonHandler<(typeof PARCEL_API)["PUT /admin/password"]> = async (
    input,
    req,
    res,
  ) => {
    const admin = res.locals.admin as { username: string };
    const body = input.body;
    const ip = clientIp(req);
    const pending = countSignInAttempt(identity, ip, ctx.now());
    const current = identity.adminHash(admin.username);
    if (!current || !(await verifyPassword(body.current_password, current))) {
      // Recorded like a failed sign-in: someone holding a session is guessing the password.
      ctx.audit(
        { kind: "admin", username: admin.username },
        "admin.password_fail",
        "system",
        clientIp(req),
      );
      throw new HttpError(401, "admin.current_password_wrong", "The current password is wrong");
    }
    identity.dropFailure(pending);
    const problem = passwordProblem(body.password);
    if (problem) {
      const short = Buffer.byteLength(body.password, "utf8") < MIN_PASSWORD_BYTES;
      throw short
        ? new HttpError(400, "admin.password_short", problem, {
            params: { min: MIN_PASSWORD_BYTES },
          })
        : new HttpError(400, "admin.password_long", problem, {
            params: { max: MAX_PASSWORD_BYTES },
          });
    }
    const hash = await hashPassword(body.password);
    const token = readCookie(ctx, req, ADMIN_COOKIE) ?? "";
    identity.changeAdminPassword(admin.username, hash, sha256Hex(token));
    ctx.audit(
      { kind: "admin", username: admin.username },
      "admin.password",
      "system",
      clientIp(req),
    );
    return { ok: true };
  };
  router.endpoint("PUT /admin/password", change, { body: "as-is" });
  return router;
}
