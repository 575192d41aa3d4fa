import { type Response, type Router } from "express";
import { appendSetCookie, serializeCookie } from "../../http/cookies.js";
import { LOGIN_MAX_FAILURES, SESSION_TTL_MS } from "../auth/accounts.js";
import { requestIdOf } from "../../http/request-log.js";
import { SESSION_COOKIE, sessionFrom, sessionOf } from "../auth/guards.js";
import { changePassword, setUpConsole, signIn } from "../domain/sign-in.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { clientIp } from "../../http/client-ip.js";

function setSessionCookie(res: Response, id: string): void {
  appendSetCookie(
    res,
    serializeCookie(SESSION_COOKIE, id, { maxAgeSeconds: SESSION_TTL_MS / 1000 }),
  );
}

/** Setup, login, logout, password change and login status. */
export function authRouter(deps: ProxyRouterDeps): Router {
  const { accounts } = deps;
  const router = deps.routes.router();

  router.endpoint("GET /auth/status", (_input, req) => {
    const session = sessionFrom(accounts, req);
    return {
      initialized: accounts.initialized(),
      authenticated: session !== null,
      csrf: session?.csrf ?? "",
    };
  });

  router.endpoint(
    "POST /auth/setup",
    async (input, _req, res) => {
      const body = input.body;
      const session = await setUpConsole(accounts, deps.setupToken, body);
      setSessionCookie(res, session.id);
      return { ok: true, csrf: session.csrf };
    },
    { body: "as-is" },
  );

  router.endpoint(
    "POST /auth/login",
    async (input, req, res) => {
      const body = input.body;
      const ip = clientIp(req);
      const session = await signIn(accounts, ip, body.password, (wait) => {
        // The wrong password that used up the client's attempts: the operator hears of it once.
        if (deps.log.firstTime(`proxy-sign-in:${ip}`, deps.clock.now() + wait * 1000))
          deps.log.warn("auth.sign_in_blocked", "Console sign-in blocked after wrong passwords", {
            requestId: requestIdOf(res) || null,
            params: { attempts: LOGIN_MAX_FAILURES, minutes: Math.ceil(wait / 60) },
          });
      });
      setSessionCookie(res, session.id);
      return { ok: true, csrf: session.csrf };
    },
    { body: "as-is" },
  );

  router.endpoint("POST /auth/logout", (_input, _req, res) => {
    const session = sessionOf(res);
    accounts.closeSession(session.idHash);
    appendSetCookie(res, serializeCookie(SESSION_COOKIE, "", { maxAgeSeconds: 0 }));
    return { ok: true };
  });

  router.endpoint(
    "PUT /auth/password",
    async (input, req, res) => {
      const body = input.body;
      const session = sessionOf(res);
      const csrf = await changePassword(accounts, clientIp(req), session.idHash, body);
      return { ok: true, csrf };
    },
    { body: "as-is" },
  );

  return router;
}
