import { type Router } from "express";
import { coreHomeDir } from "../core/home-dir.js";
import { DEFAULT_GEODATA_URL } from "../../config.js";
import { DomainError } from "../../domain-errors.js";
import { compileRules } from "../core/compile.js";
import { geoRuleLines, neededGeodata } from "../core/geodata.js";
import { updateGeodata, type GeodataUpdateOptions } from "../core/geodata-update.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { recordFailure } from "../../http/failed-action.js";

/** `POST /system/geodata/update`: fetch, verify, check and swap in the core's geodata. */
export function geodataRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();
  let running = false;

  router.endpoint(
    "POST /system/geodata/update",
    async (_input, _req, res) => {
      if (running)
        throw new DomainError("conflict", "geodata.busy", "A geodata update is already running");
      running = true;
      try {
        const rules = compileRules(deps.store.listRules());
        const bin = deps.coreBin?.() ?? deps.options.coreBin;
        const update: GeodataUpdateOptions = {
          homeDir: coreHomeDir(deps),
          baseURL: (deps.options.geodataURL ?? DEFAULT_GEODATA_URL).replace(/\/+$/, ""),
          needed: neededGeodata(rules),
          geoRules: geoRuleLines(rules),
          coreBin: bin && deps.core.installed ? bin : null,
          clock: deps.clock,
          timeoutMs: deps.tuning.geodataTimeoutMs,
        };
        const files = await updateGeodata(update).catch((err: unknown) => {
          recordFailure(res, err, (f) =>
            deps.log.warn("geodata.update_failed", "Updating the geodata failed", f),
          );
          throw err;
        });
        deps.log(`geodata updated: ${files.map((f) => f.name).join(", ")}`);
        return { ok: true, files };
      } finally {
        running = false;
      }
    },
    { body: "none" },
  );

  return router;
}
