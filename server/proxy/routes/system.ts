import { type Router } from "express";
import { DomainError } from "../../domain-errors.js";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import type { ProxyContext } from "../context.js";
import { binaryVersion } from "../core/check.js";
import { errorMessage } from "../core/errors.js";
import { CORE_WAS_RUNNING } from "../domain/lifecycle.js";
import { CONNECTIVITY_SITES, testSite } from "../system/connectivity.js";
import { networkReport } from "../system/network.js";
import { DEFAULT_RELEASE_URL, UpdateCheckError, UpdateChecker } from "../system/updates.js";
import { isoNow } from "../types.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { recordFailure } from "../../http/failed-action.js";
import { gatehousePorts } from "../domain/input-checks.js";
import {
  ConnectivityTest,
  ServiceAction,
  type ConnectivityResult,
  type ConnectivitySite,
  type NetworkReport,
  type Ok,
  type UpdateReport,
} from "../../contract/proxy.js";

/** At most this many connectivity tests at once, service-wide (one router per service). */
export const MAX_CONNECTIVITY_TESTS = 3;

async function currentVersion(deps: ProxyContext): Promise<string> {
  try {
    return await deps.core.client.version(3000);
  } catch {
    const bin = deps.coreBin?.() ?? deps.options.coreBin;
    return bin && deps.core.installed ? binaryVersion(bin) : "";
  }
}

export function systemRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();
  const updates = new UpdateChecker(deps.options.coreReleaseURL ?? DEFAULT_RELEASE_URL, deps.clock);
  let testsRunning = 0;

  router.post("/system/service", async (req, res) => {
    const { action } = parseOr400(ServiceAction, jsonObject(req.body));
    try {
      if (action === "stop") await deps.core.stop();
      else if (action === "start") await deps.core.start(deps.store.coreInput());
      else await deps.core.restart(deps.store.coreInput());
      // Read at the next start, also when this run ends without a stop (a crash).
      deps.repos.setFlag(CORE_WAS_RUNNING, action !== "stop");
    } catch (cause) {
      const err =
        cause instanceof DomainError && cause.kind === "invalid"
          ? cause
          : new HttpError(
              400,
              `core.${action}_failed`,
              `The core could not ${action}: ${errorMessage(cause)}`,
              { params: { detail: errorMessage(cause) }, cause },
            );
      recordFailure(res, err, (f) =>
        deps.log.error("control.failed", `The proxy core could not ${action}`, {
          ...f,
          params: { action },
        }),
      );
      throw err;
    }
    res.json({ ok: true } satisfies Ok);
  });

  router.get("/system/network", async (_req, res) => {
    const report: NetworkReport = {
      ...(await networkReport(deps)),
      gatehousePorts: gatehousePorts(deps.machine()),
    };
    res.json(report);
  });

  router.get("/system/updates", async (_req, res) => {
    const current = await currentVersion(deps);
    try {
      res.json((await updates.check(current)) satisfies UpdateReport);
    } catch (cause) {
      // The network library's own words go to the log file only; people get the sentence.
      const known = cause instanceof UpdateCheckError;
      const err = HttpError.carrying(
        502,
        known ? cause.code : "updates.unreachable",
        `The update check failed: ${known ? cause.message : "the release server could not be reached"}`,
        known ? cause.params : {},
        { cause },
      );
      recordFailure(res, err, (f) =>
        deps.log.warn("updates.check_failed", "The update check failed", f),
      );
      throw err;
    }
  });

  router.get("/system/connectivity", (_req, res) => {
    res.json(CONNECTIVITY_SITES satisfies readonly ConnectivitySite[]);
  });

  router.post("/system/connectivity/test", async (req, res) => {
    const { siteId } = parseOr400(ConnectivityTest, jsonObject(req.body));
    const site = CONNECTIVITY_SITES.find((s) => s.id === siteId);
    if (!site) {
      throw new HttpError(400, "connectivity.unknown_site", `Unknown site: ${siteId}`, {
        params: { site: siteId },
      });
    }
    if (testsRunning >= MAX_CONNECTIVITY_TESTS) {
      throw new HttpError(
        429,
        "connectivity.busy",
        "Three connectivity tests are already running; try again shortly",
      );
    }
    testsRunning++;
    try {
      const result = await testSite(site, {
        proxyPort: deps.store.getSettings().mixedPort,
        extraCA: deps.options.connectivityCA,
        timeoutMs: deps.tuning.connectivityTimeoutMs,
        onFailure: (err) => deps.log.info(`Connectivity test of ${site.name} failed`, { err }),
      });
      res.json({ ...result, checkedAt: isoNow(deps.clock.now()) } satisfies ConnectivityResult);
    } finally {
      testsRunning--;
    }
  });

  return router;
}
