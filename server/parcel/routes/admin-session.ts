import type { Router } from "express";
import { HttpError } from "../../http/errors.js";
import type { JsonHandler } from "../../http/route-input.js";
import type { PARCEL_API } from "../../contract/parcel.js";
import type { SessionStatus } from "../../contract/parcel-admin.js";
import type { ParcelContext } from "../context.js";
import { countSignInAttempt } from "../domain/admin-sign-in.js";
import { hashPassword, randomToken, sha256Hex, verifyPassword } from "../domain/secrets.js";
import { noteSignInBlock } from "../http/lasting-refusals.js";
import {
  ADMIN_COOKIE,
  ADMIN_TTL,
  clearCookie,
  clientIp,
  currentAdmin,
  readCookie,
  setCookie,
} from "../http/identity.js";

export { LOGIN_FAILURES, LOGIN_WINDOW } from "../domain/admin-sign-in.js";

/** `POST /admin/login`, `POST /admin/logout`, `GET /admin/status`: open without a session. */
export function adminSessionRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");
  const { identity } = ctx.repos;
  // Unknown usernames are checked against this, so both cases cost one scrypt.
  const decoy = hashPassword(randomToken());

  const login: JsonHandler<(typeof PARCEL_API)["POST /admin/login"]> = async (input, req, res) => {
    const { username, password } = input.body;
    const ip = clientIp(req);
    const pending = countSignInAttempt(identity, ip, ctx.now());
    const hash = identity.adminHash(username);
    const ok = (await verifyPassword(password, hash ?? (await decoy))) && hash !== undefined;
    if (!ok) {
      ctx.audit({ kind: "anonymous" }, "admin.login_fail", "system", clientIp(req), {
        username: username.slice(0, 64),
      });
      noteSignInBlock(ctx, res, ip);
      throw new HttpError(401, "admin.login_wrong", "Wrong username or password");
    }
    identity.dropFailure(pending);
    const token = randomToken();
    identity.addAdminSession(sha256Hex(token), username, ctx.now() + ADMIN_TTL);
    setCookie(ctx, req, res, ADMIN_COOKIE, token, ADMIN_TTL);
    ctx.audit({ kind: "admin", username }, "admin.login", "system", clientIp(req));
    return { username };
  };
  router.endpoint("POST /admin/login", login, { body: "as-is" });

  router.endpoint("POST /admin/logout", (_input, req, res) => {
    const username = currentAdmin(ctx, req);
    const token = readCookie(ctx, req, ADMIN_COOKIE);
    if (token) identity.endAdminSession(sha256Hex(token));
    clearCookie(ctx, req, res, ADMIN_COOKIE);
    if (username) ctx.audit({ kind: "admin", username }, "admin.logout", "system", clientIp(req));
    const status: SessionStatus = { authenticated: false, username: null };
    return status;
  });

  router.endpoint("GET /admin/status", (_input, req) => {
    const username = currentAdmin(ctx, req);
    const status: SessionStatus = { authenticated: username !== null, username };
    return status;
  });
  return router;
}
