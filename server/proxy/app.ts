import express, { type Express } from "express";
import { securityHeaders } from "../http/security-headers.js";
import { join } from "node:path";
import { CONTENT_SECURITY_POLICY } from "../http/csp.js";
import { errorHandler, notFound } from "../http/errors.js";
import { requestLog } from "../http/request-log.js";
import { hostGuard } from "./auth/guards.js";
import { apiRouter } from "./routes/api.js";
import { PROXY_STATUS } from "./error-status.js";
import type { ProxyRouterDeps } from "./routes/router-deps.js";

/** Every address of this machine's interfaces (the `Host` names the console accepts as IPs). */
function machineAddresses(
  interfaces: () => NodeJS.Dict<import("node:os").NetworkInterfaceInfo[]>,
): string[] {
  return Object.values(interfaces())
    .flatMap((list) => list ?? [])
    .map((i) => i.address.replace(/%.*$/, ""));
}

/**
 * The console's HTTP face: host check and security headers on everything, the API under
 * `/api/v1`, the built web UI at `/` when there is one, JSON errors for the rest.
 */
export function proxyApp(
  deps: ProxyRouterDeps,
  interfaces: () => NodeJS.Dict<import("node:os").NetworkInterfaceInfo[]>,
): Express {
  const { options, log } = deps;
  const app = express();
  // Paths match exactly everywhere: another letter case or a trailing slash is another path.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  app.use(requestLog(log));
  app.set("etag", false);
  app.use(hostGuard(() => machineAddresses(interfaces), options.allowedHosts));
  app.use(securityHeaders);
  app.use("/api/v1", apiRouter(deps));
  if (options.staticDir) {
    const staticDir = options.staticDir;
    app.get(["/", "/index.html", "/proxy.html"], (_req, res) => {
      res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      res.setHeader("Cache-Control", "no-cache");
      res.sendFile(join(staticDir, "proxy.html"));
    });
    app.use(
      express.static(staticDir, {
        index: false,
        maxAge: "1h",
        setHeaders: (res, path) => {
          if (path.endsWith(".html"))
            res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        },
      }),
    );
  }
  app.use(notFound("No such page", "request.no_page"));
  app.use(errorHandler(log, PROXY_STATUS));
  return app;
}
