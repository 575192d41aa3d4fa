import { type Router, type Response } from "express";
import { HttpError } from "../../http/errors.js";
import { parsePageQuery } from "../../http/pagination.js";
import type { AdminParcelPage } from "../../contract/parcel-admin.js";
import type { Reissued } from "../../contract/parcel-views.js";
import type { Actor, ParcelContext } from "../context.js";
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

  router.get("/stats", (_req, res) => {
    res.json(readStats(ctx));
  });

  router.get("/parcels", (req, res) => {
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
    const list: AdminParcelPage = listParcels(
      ctx,
      { q: q || undefined, state: state as ParcelState | undefined },
      page,
    );
    res.json(list);
  });

  router.post("/parcels/:id/delete", (req, res) => {
    const view = deleteParcel(ctx, req.params.id);
    ctx.audit(req, admin(res), "admin.parcel_delete", `parcel:${view.id}`);
    res.json(view);
  });

  router.post("/files/:id/delete", (req, res) => {
    // The row goes with the file: its name is kept in the record for the audit view.
    const file = ctx.repos.parcels.file(req.params.id);
    const view = deleteFile(ctx, req.params.id);
    ctx.audit(req, admin(res), "admin.file_delete", `file:${req.params.id}`, {
      name: file?.name,
      size: file?.size,
      parcel: view.id,
      state: view.state,
    });
    res.json(view);
  });

  router.post("/parcels/:id/reissue", (req, res) => {
    const { row, files, code } = reissueParcel(ctx, req.params.id);
    ctx.audit(req, admin(res), "admin.reissue", `parcel:${row.id}`, {
      expires_at: row.expires_at,
      downloads: row.downloads_left,
    });
    const body: Reissued = {
      ...adminParcelView(row, files),
      ...shareFields(ctx, ctx.entryFor(req).origin, code, row),
    };
    res.json(body);
  });
  return router;
}
