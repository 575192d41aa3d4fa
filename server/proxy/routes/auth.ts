import { type Response, type Router } from "express";
import { appendSetCookie, serializeCookie } from "../../http/cookies.js";
import { HttpError } from "../../http/errors.js";
import { parseOr400 } from "../../http/validate.js";
import { LOGIN_MAX_FAILURES, SESSION_TTL_MS, type Accounts } from "../auth/accounts.js";
import { requestIdOf } from "../../http/request-log.js";
import { SESSION_COOKIE, sessionFrom, sessionOf } from "../auth/guards.js";
import {
  hashPassword,
  MAX_PASSWORD_BYTES,
  MIN_PASSWORD_BYTES,
  passwordProblem,
  tokensEqual,
  verifyPassword,
} from "../auth/passwords.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import {
  LoginBody,
  PasswordBody,
  SetupBody,
  type AuthStatus,
  type Ok,
  type SessionOpened,
} from "../../contract/proxy.js";
import { clientIp } from "../../http/client-ip.js";

function setSessionCookie(res: Response, id: string): void {
  appendSetCookie(
    res,
    serializeCookie(SESSION_COOKIE, id, { maxAgeSeconds: SESSION_TTL_MS / 1000 }),
  );
}

function checkNewPassword(password: string): void {
  const problem = passwordProblem(password);
  if (!problem) return;
  throw Buffer.byteLength(password, "utf8") < MIN_PASSWORD_BYTES
    ? new HttpError(400, "auth.password_short", problem, { params: { min: MIN_PASSWORD_BYTES } })
    : new HttpError(400, "auth.password_long", problem, { params: { max: MAX_PASSWORD_BYTES } });
}

/** Counts this attempt before the password is checked; 429 once the client has used them up. */
function countAttempt(accounts: Accounts, ip: string): void {
  const retry = accounts.beginLoginAttempt(ip);
  if (retry > 0) {
    throw new HttpError(
      429,
      "auth.login_limit",
      "Too many failed sign-in attempts; try again later",
      {
        headers: { "Retry-After": String(retry) },
      },
    );
  }
}

/** Setup, login, logout, password change and login status. */
export function authRouter(deps: ProxyRouterDeps): Router {
  const { accounts } = deps;
  const router = deps.routes.router();

  router.get("/auth/status", (req, res) => {
    const session = sessionFrom(accounts, req);
    res.json({
      initialized: accounts.initialized(),
      authenticated: session !== null,
      csrf: session?.csrf ?? "",
    } satisfies AuthStatus);
  });

  router.post("/auth/setup", async (req, res) => {
    const body = parseOr400(SetupBody, req.body);
    if (accounts.initialized()) {
      throw new HttpError(
        400,
        "auth.already_set_up",
        "The administrator password has already been set",
      );
    }
    const expected = deps.setupToken.value;
    if (!expected || !tokensEqual(body.token.trim(), expected)) {
      throw new HttpError(401, "auth.setup_token", "The setup token is wrong");
    }
    checkNewPassword(body.password);
    if (!accounts.createAdmin(await hashPassword(body.password))) {
      throw new HttpError(
        400,
        "auth.already_set_up",
        "The administrator password has already been set",
      );
    }
    deps.setupToken.consume();
    const session = accounts.openSession();
    setSessionCookie(res, session.id);
    res.json({ ok: true, csrf: session.csrf } satisfies SessionOpened);
  });

  router.post("/auth/login", async (req, res) => {
    const body = parseOr400(LoginBody, req.body);
    const ip = clientIp(req);
    const hash = accounts.passwordHash();
    if (!hash) throw new HttpError(401, "auth.not_set_up", "The service has not been set up yet");
    countAttempt(accounts, ip);
    if (!(await verifyPassword(body.password, hash))) {
      // The wrong password that used up the client's attempts: the operator hears of it once.
      const wait = accounts.loginBlockedFor(ip);
      if (wait > 0 && deps.log.firstTime(`proxy-sign-in:${ip}`, deps.clock.now() + wait * 1000))
        deps.log.warn("auth.sign_in_blocked", "Console sign-in blocked after wrong passwords", {
          requestId: requestIdOf(res) || null,
          params: { attempts: LOGIN_MAX_FAILURES, minutes: Math.ceil(wait / 60) },
        });
      throw new HttpError(401, "auth.password_wrong", "The password is wrong");
    }
    accounts.clearLoginFailures(ip);
    const session = accounts.openSession();
    setSessionCookie(res, session.id);
    res.json({ ok: true, csrf: session.csrf } satisfies SessionOpened);
  });

  router.post("/auth/logout", (_req, res) => {
    const session = sessionOf(res);
    accounts.closeSession(session.idHash);
    appendSetCookie(res, serializeCookie(SESSION_COOKIE, "", { maxAgeSeconds: 0 }));
    res.json({ ok: true } satisfies Ok);
  });

  router.put("/auth/password", async (req, res) => {
    const body = parseOr400(PasswordBody, req.body);
    const session = sessionOf(res);
    const ip = clientIp(req);
    countAttempt(accounts, ip);
    const hash = accounts.passwordHash();
    if (!hash || !(await verifyPassword(body.currentPassword, hash))) {
      throw new HttpError(401, "auth.current_password_wrong", "The current password is wrong");
    }
    accounts.clearLoginFailures(ip);
    checkNewPassword(body.password);
    accounts.setPassword(await hashPassword(body.password));
    const csrf = accounts.keepOnly(session.idHash);
    res.json({ ok: true, csrf } satisfies SessionOpened);
  });

  return router;
}
