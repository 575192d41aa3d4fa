import type { Router } from "express";
import { PROXY_API } from "../../contract/proxy.js";
import { serveOpenApi } from "../../http/openapi.js";
import { VERSION } from "../../version.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/**
 * `GET /health` (the service runs; a supervisor or a smoke test asks it) and
 * `GET /openapi.json` (the API document made from the wire contract): both answered without
 * a session, as neither holds any data.
 */
export function openApiRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();
  router.endpoint("GET /health", () => {
    return {
      ok: true,
      initialized: deps.accounts.initialized(),
      version: VERSION,
    };
  });
  router.raw(
    "GET /openapi.json",
    serveOpenApi(
      {
        title: "Gatehouse proxy API",
        version: VERSION,
        description:
          "The proxy console's API. Sign in with POST /auth/login (a session cookie); every " +
          "state-changing call then sends the session's CSRF token in X-CSRF-Token.",
      },
      PROXY_API,
    ),
  );
  return router;
}
