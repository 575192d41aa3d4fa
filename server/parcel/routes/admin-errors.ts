import type { Router } from "express";
import type { RecentProblems } from "../../contract/parcel-admin.js";
import type { ParcelContext } from "../context.js";

/**
 * `GET /admin/errors` (behind `requireAdmin`): the service's last warnings and errors, newest
 * first, so the administrator sees a failing disk or a crashed cleanup without reading logs.
 * Kept in memory: a restart starts the list afresh. `code` and `params` name each one for the
 * page to say in the reader's language; `message` is the log file's English sentence.
 */
export function adminErrorsRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");
  router.endpoint("GET /admin/errors", () => {
    const body: RecentProblems = {
      items: ctx.log.recent().map((p) => ({
        time: Math.floor(p.timeMs / 1000),
        level: p.level,
        code: p.code,
        params: p.params,
        message: p.message,
        request_id: p.requestId,
      })),
    };
    return body;
  });
  return router;
}
