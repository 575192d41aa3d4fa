import type { RequestHandler } from "express";
import { RouteTable } from "../../http/route-table.js";
import type { ParcelContext } from "../context.js";
import type { ParcelAccess } from "./access-kinds.js";
import { requireAdmin } from "./identity.js";

export type { ParcelAccess };

/** Every route of the parcel service and its access; a route missing here cannot be registered. */
export const PARCEL_ROUTES: Readonly<Record<string, ParcelAccess>> = {
  "GET /health": "public",
  "GET /openapi.json": "public",
  "GET /policy": "public",
  "POST /uploads": "public",
  "POST /pickup/resolve": "public",
  "POST /inbox/resolve": "public",
  "GET /mine": "visitor",
  "GET /uploads/:id": "owner",
  "PUT /uploads/:id/files/:file": "owner",
  "HEAD /uploads/:id/files/:file": "owner",
  "PATCH /uploads/:id/files/:file": "owner",
  "DELETE /uploads/:id/files/:file": "owner",
  "POST /uploads/:id/publish": "owner",
  "POST /parcels/:id/revoke": "owner",
  "POST /parcels/:id/code": "owner",
  "GET /parcels/:id/code": "owner-token",
  "GET /pickup": "pickup",
  "GET /pickup/files/:file/download": "pickup",
  "GET /pickup/archive": "pickup",
  "POST /admin/login": "admin-session",
  "POST /admin/logout": "admin-session",
  "GET /admin/status": "admin-session",
  "PUT /admin/password": "admin",
  "GET /admin/stats": "admin",
  "GET /admin/parcels": "admin",
  "POST /admin/parcels/:id/delete": "admin",
  "POST /admin/files/:id/delete": "admin",
  "POST /admin/parcels/:id/reissue": "admin",
  "GET /admin/policy": "admin",
  "PUT /admin/policy": "admin",
  "GET /admin/runtime": "admin",
  "PUT /admin/runtime": "admin",
  "POST /admin/cleanup": "admin",
  "GET /admin/verify": "admin",
  "POST /admin/verify": "admin",
  "GET /admin/audit": "admin",
  "GET /admin/errors": "admin",
  "POST /admin/inbox": "admin",
  "GET /admin/inbox": "admin",
  "DELETE /admin/inbox": "admin",
};

/**
 * The parcel service's route table. Owner and pickup routes check their credential in the
 * handler (it depends on the parcel the path names); administrator routes are guarded here.
 */
export function parcelRouteTable(ctx: () => ParcelContext): RouteTable<ParcelAccess> {
  const admin: RequestHandler = (req, res, next) => {
    res.locals.admin = requireAdmin(ctx(), req);
    next();
  };
  return new RouteTable<ParcelAccess>({
    access: (method, path) => {
      const access = PARCEL_ROUTES[`${method} ${path}`];
      if (!access) throw new Error(`route ${method} ${path} has no access kind in PARCEL_ROUTES`);
      return access;
    },
    guard: (access) => (access === "admin" ? [admin] : []),
  });
}
