import type { Router } from "express";
import { join } from "node:path";
import { geodataList } from "../core/geodata.js";
import { FileFacts, previousPath, shownPath } from "../core/install-status.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { recordFailure } from "../../http/failed-action.js";

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

  router.endpoint(
    "POST /system/core/install",
    async (input, _req, res) => {
      // An empty JSON object, or no body at all: these routes take no parameters.
      void input.body;
      const { version } = await installer.install().catch((err: unknown) => {
        recordFailure(res, err, (f) =>
          deps.log.warn("install.failed", "Installing the proxy core failed", f),
        );
        throw err;
      });
      return { ok: true, version };
    },
    { body: "optional" },
  );

  router.endpoint(
    "POST /system/core/rollback",
    async (input, _req, res) => {
      void input.body;
      const { version } = await installer.rollback().catch((err: unknown) => {
        recordFailure(res, err, (f) =>
          deps.log.warn("install.rollback_failed", "Going back to the previous core failed", f),
        );
        throw err;
      });
      return { ok: true, version };
    },
    { body: "optional" },
  );

  return router;
}
