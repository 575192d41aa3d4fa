import type { Router } from "express";
import { HttpError } from "../../http/errors.js";
import { parseIntQuery, parsePageQuery } from "../../http/pagination.js";
import { ACTION_FORM } from "../../contract/parcel-admin.js";
import type { ParcelContext } from "../context.js";
import { queryString } from "./admin-query.js";

/** `GET /admin/audit` (behind `requireAdmin`). */
export function adminAuditRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");
  router.endpoint("GET /admin/audit", (_input, req) => {
    const query = req.query as Record<string, unknown>;
    const page = parsePageQuery(query, 20);
    const action = queryString(query, "action");
    if (action !== undefined && !ACTION_FORM.test(action)) {
      throw new HttpError(
        400,
        "admin.action_filter",
        "action must look like scope.verb (lower-case letters, digits, _)",
      );
    }
    const from = parseIntQuery(query, "from");
    const to = parseIntQuery(query, "to");
    if (from !== undefined && to !== undefined && from > to) {
      throw new HttpError(400, "admin.time_range", "from must not be later than to");
    }
    const filter = {
      action,
      source: queryString(query, "source"),
      target: queryString(query, "target"),
      from,
      to,
    };
    return ctx.repos.audit.page(filter, page);
  });
  return router;
}
