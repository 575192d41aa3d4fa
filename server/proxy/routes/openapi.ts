import type { Router } from "express";
import { PROXY_API } from "../../contract/proxy.js";
import { openApiDocument } from "../../http/openapi.js";
import { VERSION } from "../../version.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/**
 * `GET /openapi.json`: the API document made from the wire contract, built on the first ask
 * and kept. It is answered without a session: it describes the routes and holds no data.
 */
export function openApiRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();
  let document: object | null = null;
  router.get("/openapi.json", (_req, res) => {
    document ??= openApiDocument(
      {
        title: "Gatehouse proxy API",
        version: VERSION,
        description:
          "The proxy console's API. Sign in with POST /auth/login (a session cookie); every " +
          "state-changing call then sends the session's CSRF token in X-CSRF-Token.",
      },
      PROXY_API,
    );
    res.json(document);
  });
  return router;
}
