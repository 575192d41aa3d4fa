import type { Router } from "express";
import { HttpError } from "../../http/errors.js";
import type { ParcelContext } from "../context.js";
import { revokeParcel } from "../domain/sessions.js";
import { shareFields } from "../domain/share.js";
import { currentCode, newCode, ownedParcel } from "../domain/uploads.js";
import { clientIp, currentVisitor, ownerOf, requireOwner } from "../http/identity.js";
import { parcelView } from "../domain/parcel-views.js";

const MINE_LIMIT = 100;

/** `GET /mine`, `POST /parcels/:id/revoke`, `POST /parcels/:id/code`, `GET /parcels/:id/code`. */
export function ownerRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router();
  const { parcels } = ctx.repos;

  r.endpoint("GET /mine", (_input, req) => {
    const visitor = currentVisitor(ctx, req);
    if (!visitor)
      throw new HttpError(401, "owner.visitor_required", "A visitor cookie is required");
    const rows = parcels.ownedBy(visitor.id, MINE_LIMIT);
    const files = parcels.filesOf(rows.map((p) => p.id));
    return { items: rows.map((p) => parcelView(p, files.get(p.id) ?? [])) };
  });

  r.endpoint("POST /parcels/:id/revoke", ({ params }, req) => {
    const actor = requireOwner(ctx, req, params.id);
    const id = params.id;
    if (revokeParcel(ctx, id)) ctx.audit(actor, "parcel.revoke", `parcel:${id}`, clientIp(req));
    const p = ownedParcel(ctx, id);
    return parcelView(p, parcels.files(id));
  });

  r.endpoint("POST /parcels/:id/code", ({ params }, req) => {
    const { actor, token } = ownerOf(ctx, req, params.id);
    const id = params.id;
    const { parcel, code } = newCode(ctx, id, token);
    ctx.audit(actor, "parcel.code", `parcel:${id}`, clientIp(req));
    return shareFields(ctx, ctx.entryFor(req).origin, code, parcel);
  });

  // The current code again, for the owner holding the manage token: it is the key that opens
  // the sealed code, so the visitor cookie alone cannot.
  r.endpoint("GET /parcels/:id/code", ({ params }, req) => {
    const { token } = ownerOf(ctx, req, params.id);
    if (token === null)
      throw new HttpError(
        403,
        "owner.token_needed",
        "Showing a parcel's code again needs its manage token",
      );
    const { parcel, code } = currentCode(ctx, params.id, token);
    return shareFields(ctx, ctx.entryFor(req).origin, code, parcel);
  });

  return r;
}
