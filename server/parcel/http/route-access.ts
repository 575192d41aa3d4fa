import type { RequestHandler } from "express";
import { PARCEL_API } from "../../contract/parcel.js";
import { RouteTable } from "../../http/route-table.js";
import type { ParcelContext } from "../context.js";
import type { ParcelAccess } from "./access-kinds.js";
import { jsonBody } from "./guards.js";
import { requireAdmin } from "./identity.js";

export type { ParcelAccess };

/**
 * The parcel service's route table, made from its contract (each entry names its access).
 * Owner and pickup routes check their credential in the
 * handler (it depends on the parcel the path names); administrator routes are guarded here.
 */
export function parcelRouteTable(
  ctx: () => ParcelContext,
): RouteTable<ParcelAccess, typeof PARCEL_API> {
  const admin: RequestHandler = (req, res, next) => {
    res.locals.admin = requireAdmin(ctx(), req);
    next();
  };
  return new RouteTable({
    contract: PARCEL_API,
    // The JSON body is read only once the caller is admitted, and only where the entry takes one.
    guard: (access, _method, entry) => [
      ...(access === "admin" ? [admin] : []),
      ...(entry.body ? [jsonBody] : []),
    ],
  });
}
