import { type Router, type Response } from "express";
import { HttpError } from "../../http/errors.js";
import { parsePageQuery } from "../../http/pagination.js";
import type { Reissued } from "../../contract/parcel-views.js";
import type { Actor, ParcelContext } from "../context.js";
import { clientIp } from "../http/identity.js";
import { shareFields } from "../domain/share.js";
import { deleteFile, deleteParcel, listParcels, reissueParcel } from "../domain/admin-parcels.js";
import { readStats } from "../domain/stats.js";
import { PARCEL_STATES, type ParcelState } from "../../contract/parcel-views.js";
import { adminParcelView } from "../domain/parcel-views.js";
import { queryString } from "./admin-query.js";

function admin(res: Response): Actor {
  return res.locals.admin as Actor;
}

/** Stats, the parcel list, deletes and reissue (all behind `requireAdmin`). */
export function adminParcelsRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");

  router.endpoint("GET /admin/stats", () => readStats(ctx));

  router.endpoint("GET /admin/parcels", (_input, req) => {
    const query = req.query as Record<string, unknown>;
    const page = parsePageQuery(query, 10);
    const state = queryString(query, "state");
    if (state !== undefined && !PARCEL_STATES.includes(state as ParcelState)) {
      throw new HttpError(
        400,
        "admin.state_filter",
        `state must be one of ${PARCEL_STATES.join(", ")}`,
      );
    }
    const q = queryString(query, "q");
    return listParcels(ctx, { q: q || undefined, state: state as ParcelState | undefined }, page);
  });

  router.endpoint("POST /admin/parcels/:id/delete", ({ params }, req, res) => {
    const view = deleteParcel(ctx, params.id);
    ctx.audit(admin(res), "admin.parcel_delete", `parcel:${view.id}`, clientIp(req));
    return view;
  });

  router.endpoint("POST /admin/files/:id/delete", ({ params }, req, res) => {
    // The row goes with the file: its name is kept in the record for the audit view.
    const file = ctx.repos.parcels.file(params.id);
    const view = deleteFile(ctx, params.id);
    ctx.audit(admin(res), "admin.file_delete", `file:${params.id}`, clientIp(req), {
      name: file?.name,
      size: file?.size,
      parcel: view.id,
      state: view.state,
    });
    return view;
  });

  router.endpoint("POST /admin/parcels/:id/reissue", ({ params }, req, res) => {
    const { row, files, code } = reissueParcel(ctx, params.id);
    ctx.audit(admin(res), "admin.reissue", `parcel:${row.id}`, clientIp(req), {
      expires_at: row.expires_at,
      downloads: row.downloads_left,
    });
    const body: Reissued = {
      ...adminParcelView(row, files),
      ...shareFields(ctx, ctx.entryFor(req).origin, code, row),
    };
    return body;
  });
  return router;
}
