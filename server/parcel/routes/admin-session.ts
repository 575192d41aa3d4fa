import type { Router } from "express";
import { z } from "zod";
import { HttpError } from "../../http/errors.js";
import { parseOr400 } from "../../http/validate.js";
import type { ParcelContext } from "../context.js";
import { hashPassword, randomToken, sha256Hex, verifyPassword } from "../domain/secrets.js";
import { jsonBody } from "../http/guards.js";
import {
  ADMIN_COOKIE,
  ADMIN_TTL,
  clearCookie,
  clientIp,
  currentAdmin,
  readCookie,
  setCookie,
} from "../http/identity.js";

/** Login failures allowed per client address within the window. */
export const LOGIN_FAILURES = 5;
export const LOGIN_WINDOW = 15 * 60;

const loginSchema = z.object({
  username: z.string().min(1).max(256),
  password: z.string().max(1024),
});

/** `POST /admin/login`, `POST /admin/logout`, `GET /admin/status`: open without a session. */
export function adminSessionRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");
  const { db } = ctx;
  // Unknown usernames are checked against this, so both cases cost one scrypt.
  const decoy = hashPassword(randomToken());
  const failuresSince = db.prepare(
    "SELECT COUNT(*) AS n, MIN(time) AS first FROM failures WHERE kind = 'login' AND client = ? AND time > ?",
  );
  const addFailure = db.prepare("INSERT INTO failures (kind, client, time) VALUES ('login', ?, ?)");
  const dropFailure = db.prepare("DELETE FROM failures WHERE rowid = ?");
  const adminHash = db.prepare("SELECT password_hash AS hash FROM admins WHERE username = ?");
  const addSession = db.prepare(
    "INSERT INTO admin_sessions (token_hash, username, expires_at) VALUES (?, ?, ?)",
  );
  const endSession = db.prepare("DELETE FROM admin_sessions WHERE token_hash = ?");

  router.post("/login", jsonBody, async (req, res) => {
    const { username, password } = parseOr400(loginSchema, req.body);
    const ip = clientIp(req);
    const now = ctx.now();
    const recent = failuresSince.get(ip, now - LOGIN_WINDOW) as { n: number; first: number | null };
    if (recent.n >= LOGIN_FAILURES) {
      const retry = Math.max(1, (recent.first ?? now) + LOGIN_WINDOW - now);
      throw new HttpError(429, "admin.login_limit", "Too many failed sign-ins; try again later", {
        headers: { "Retry-After": String(retry) },
      });
    }
    // Counted before the (slow) check and taken back on success, so parallel guesses cannot
    // slip past the limit while scrypt runs.
    const pending = addFailure.run(ip, now).lastInsertRowid;
    const row = adminHash.get(username) as { hash: string } | undefined;
    const ok = (await verifyPassword(password, row?.hash ?? (await decoy))) && row !== undefined;
    if (!ok) {
      ctx.audit(req, { kind: "anonymous" }, "admin.login_fail", "system", {
        username: username.slice(0, 64),
      });
      throw new HttpError(401, "admin.login_wrong", "Wrong username or password");
    }
    dropFailure.run(pending);
    const token = randomToken();
    addSession.run(sha256Hex(token), username, ctx.now() + ADMIN_TTL);
    setCookie(ctx, req, res, ADMIN_COOKIE, token, ADMIN_TTL);
    ctx.audit(req, { kind: "admin", username }, "admin.login", "system");
    res.json({ username });
  });

  router.post("/logout", (req, res) => {
    const username = currentAdmin(ctx, req);
    const token = readCookie(ctx, req, ADMIN_COOKIE);
    if (token) endSession.run(sha256Hex(token));
    clearCookie(ctx, req, res, ADMIN_COOKIE);
    if (username) ctx.audit(req, { kind: "admin", username }, "admin.logout", "system");
    res.json({ authenticated: false, username: null });
  });

  router.get("/status", (req, res) => {
    const username = currentAdmin(ctx, req);
    res.json({ authenticated: username !== null, username });
  });
  return router;
}
