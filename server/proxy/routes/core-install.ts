import type { Request, Response, Router } from "express";
import { join } from "node:path";
import { geodataList } from "../core/geodata.js";
import { FileFacts, previousPath, shownPath } from "../core/install-status.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { recordFailure, type FailureFields } from "../../http/failed-action.js";

/** `GET /system/core`, `POST /system/core/install`, `POST /system/core/rollback`. */
export function coreInstallRouter(deps: ProxyRouterDeps): Router {
  const { locator, installer } = deps;
  const router = deps.routes.router();
  const facts = new FileFacts();

  router.endpoint("GET /system/core", async () => {
    const where = locator.current();
    const shown = where ? shownPath(locator, where) : null;
    const [version, previousVersion] = await Promise.all([
      facts.version(where?.path),
      facts.version(previousPath(locator)),
    ]);
    return {
      installed: where !== null,
      version,
      // Never an absolute path: the data dir's layout is not the LAN's business.
      path: shown,
      source: where?.source ?? null,
      previousVersion,
      installing: installer.installing,
      // How far a running install is (the console shows the download's progress).
      progress: installer.progress,
      // The rules' data files in the core's home (kept by the geodata module).
      geodata: geodataList(join(deps.dir, "core")),
    };
  });

  // Both take no parameters (an empty JSON object, or no body at all); a failure is logged
  // and recorded for the console's recent problems before its error answers.
  const step =
    (run: () => Promise<{ version: string }>, logFailure: (f: FailureFields) => void) =>
    async (_input: unknown, _req: Request, res: Response) => {
      const { version } = await run().catch((err: unknown) => {
        recordFailure(res, err, logFailure);
        throw err;
      });
      return { ok: true as const, version };
    };
  router.endpoint(
    "POST /system/core/install",
    step(
      () => installer.install(),
      (f) => deps.log.warn("install.failed", "Installing the proxy core failed", f),
    ),
    { body: "none" },
  );
  router.endpoint(
    "POST /system/core/rollback",
    step(
      () => installer.rollback(),
      (f) => deps.log.warn("install.rollback_failed", "Going back to the previous core failed", f),
    ),
    { body: "none" },
  );

  return router;
}
