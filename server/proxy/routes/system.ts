import { type Router } from "express";
import type { ProxyContext } from "../context.js";
import { binaryVersion } from "../core/check.js";
import {
  CONNECTIVITY_SITES,
  connectivityBusy,
  connectivitySite,
  testSite,
} from "../system/connectivity.js";
import { networkReport } from "../system/network.js";
import { DEFAULT_RELEASE_URL, UpdateChecker, updateCheckFailed } from "../system/updates.js";
import { isoNow } from "../types.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { recordFailure } from "../../http/failed-action.js";
import { gatehousePorts } from "../domain/input-checks.js";
import { type NetworkReport } from "../../contract/proxy.js";

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

  router.endpoint("POST /system/service", async (input, _req, res) => {
    const { action } = input.body;
    try {
      await deps.coreService.control(action);
    } catch (err) {
      recordFailure(res, err, (f) =>
        deps.log.error("control.failed", `The proxy core could not ${action}`, {
          ...f,
          params: { action },
        }),
      );
      throw err;
    }
    return { ok: true };
  });

  router.endpoint("GET /system/network", async () => {
    const report: NetworkReport = {
      ...(await networkReport(deps)),
      gatehousePorts: gatehousePorts(deps.machine()),
    };
    return report;
  });

  router.endpoint("GET /system/updates", async (_input, _req, res) => {
    const current = await currentVersion(deps);
    try {
      return await updates.check(current);
    } catch (cause) {
      const err = updateCheckFailed(cause);
      recordFailure(res, err, (f) =>
        deps.log.warn("updates.check_failed", "The update check failed", f),
      );
      throw err;
    }
  });

  router.endpoint("GET /system/connectivity", () => {
    return [...CONNECTIVITY_SITES];
  });

  router.endpoint("POST /system/connectivity/test", async (input) => {
    const { siteId } = input.body;
    const site = connectivitySite(siteId);
    if (testsRunning >= MAX_CONNECTIVITY_TESTS) throw connectivityBusy();
    testsRunning++;
    try {
      const result = await testSite(site, {
        proxyPort: deps.store.getSettings().mixedPort,
        extraCA: deps.options.connectivityCA,
        timeoutMs: deps.tuning.connectivityTimeoutMs,
        onFailure: (err) => deps.log.info(`Connectivity test of ${site.name} failed`, { err }),
      });
      return { ...result, checkedAt: isoNow(deps.clock.now()) };
    } finally {
      testsRunning--;
    }
  });

  return router;
}
