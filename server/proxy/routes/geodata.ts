import { type Router } from "express";
import { join } from "node:path";
import { z } from "zod";
import { DEFAULT_GEODATA_URL } from "../../config.js";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import type { ProxyContext } from "../context.js";
import { compileRules } from "../core/compile.js";
import { geoRuleLines, neededGeodata } from "../core/geodata.js";
import { updateGeodata, type GeodataUpdateOptions } from "../core/geodata-update.js";

export interface GeodataRouterOptions {
  /** Deadline of one file's download (tests shorten it). */
  timeoutMs?: number;
}

/** The core's home dir, where its geodata lives. */
export function coreHomeDir(ctx: ProxyContext): string {
  return (ctx.core as { homeDir?: string }).homeDir ?? join(ctx.dir, "core");
}

/** `POST /system/geodata/update`: fetch, verify, check and swap in the core's geodata. */
export function geodataRouter(ctx: ProxyContext, opts: GeodataRouterOptions = {}): Router {
  const router = ctx.routes.router();
  let running = false;

  router.post("/system/geodata/update", async (req, res) => {
    parseOr400(z.object({}).strict(), jsonObject(req.body));
    if (running) throw new HttpError(409, "geodata.busy", "A geodata update is already running");
    running = true;
    try {
      const rules = compileRules(ctx.store.listRules());
      const bin = ctx.coreBin?.() ?? ctx.options.coreBin;
      const update: GeodataUpdateOptions = {
        homeDir: coreHomeDir(ctx),
        baseURL: (ctx.options.geodataURL ?? DEFAULT_GEODATA_URL).replace(/\/+$/, ""),
        needed: neededGeodata(rules),
        geoRules: geoRuleLines(rules),
        coreBin: bin && ctx.core.installed ? bin : null,
        clock: ctx.clock,
        timeoutMs: opts.timeoutMs,
      };
      const files = await updateGeodata(update);
      ctx.log(`geodata updated: ${files.map((f) => f.name).join(", ")}`);
      res.json({ ok: true, files });
    } finally {
      running = false;
    }
  });

  return router;
}
