import type { Router } from "express";
import { z } from "zod";
import { HttpError } from "../../http/errors.js";
import { parseOr400 } from "../../http/validate.js";
import { MAX_PASSWORD_BYTES, MIN_PASSWORD_BYTES, passwordProblem } from "../../password-hash.js";
import type { ParcelContext } from "../context.js";
import { hashPassword, sha256Hex, verifyPassword } from "../domain/secrets.js";
import { jsonBody } from "../http/guards.js";
import { ADMIN_COOKIE, clientIp, readCookie } from "../http/identity.js";
import { LOGIN_FAILURES, LOGIN_WINDOW } from "./admin-session.js";

const passwordBody = z.object({
  current_password: z.string().max(1024),
  password: z.string().max(1024),
});

/**
 * `PUT /admin/password` (behind the administrator's session): a new password for the signed-in
 * administrator, given the current one. Wrong current passwords count as failed sign-ins from
 * that address (counted before the slow check), and every other session of the service ends.
 */
export function adminPasswordRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");
  const { db } = ctx;
  const failuresSince = db.prepare(
    "SELECT COUNT(*) AS n, MIN(time) AS first FROM failures WHERE kind = 'login' AND client = ? AND time > ?",
  );
  const addFailure = db.prepare("INSERT INTO failures (kind, client, time) VALUES ('login', ?, ?)");
  const dropFailure = db.prepare("DELETE FROM failures WHERE rowid = ?");
  const adminHash = db.prepare("SELECT password_hash AS hash FROM admins WHERE username = ?");
  const setHash = db.prepare("UPDATE admins SET password_hash = ? WHERE username = ?");
  const endOthers = db.prepare("DELETE FROM admin_sessions WHERE token_hash <> ?");

  router.put("/password", jsonBody, async (req, res) => {
    const admin = res.locals.admin as { username: string };
    const body = parseOr400(passwordBody, req.body);
    const ip = clientIp(req);
    const now = ctx.now();
    const recent = failuresSince.get(ip, now - LOGIN_WINDOW) as { n: number; first: number | null };
    if (recent.n >= LOGIN_FAILURES) {
      const retry = Math.max(1, (recent.first ?? now) + LOGIN_WINDOW - now);
      throw new HttpError(429, "admin.login_limit", "Too many failed sign-ins; try again later", {
        headers: { "Retry-After": String(retry) },
      });
    }
    const pending = addFailure.run(ip, now).lastInsertRowid;
    const row = adminHash.get(admin.username) as { hash: string } | undefined;
    if (!row || !(await verifyPassword(body.current_password, row.hash))) {
      throw new HttpError(401, "admin.current_password_wrong", "The current password is wrong");
    }
    dropFailure.run(pending);
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
    db.transaction(() => {
      setHash.run(hash, admin.username);
      endOthers.run(sha256Hex(token));
    })();
    ctx.audit(req, { kind: "admin", username: admin.username }, "admin.password", "system");
    res.json({ ok: true });
  });
  return router;
}
