import type { Router } from "express";
import { HttpError } from "../../http/errors.js";
import type { ParcelContext } from "../context.js";
import { issueCode, shareFields } from "../domain/share.js";
import { currentVisitor, requireOwner } from "../http/identity.js";
import { getFiles, getFilesOf, parcelView, type ParcelRow } from "../repos/parcels.js";
import { ownedParcel } from "./uploads.js";

const MINE_LIMIT = 100;

/** `GET /mine`, `POST /parcels/:id/revoke`, `POST /parcels/:id/code`. */
export function ownerRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router();
  const mine = ctx.db.prepare(
    "SELECT * FROM parcels WHERE owner_visitor = ? ORDER BY sort_at DESC, id DESC LIMIT ?",
  );
  const revoke = ctx.db.prepare(
    `UPDATE parcels SET state = 'revoked', ended_at = ?, reserved_bytes = 0
     WHERE id = ? AND state IN ('uploading','published','review')`,
  );
  const pendingFiles = ctx.db.prepare(
    "SELECT id FROM files WHERE parcel_id = ? AND state != 'ready'",
  );

  r.get("/mine", (req, res) => {
    const visitor = currentVisitor(ctx, req);
    if (!visitor)
      throw new HttpError(401, "owner.visitor_required", "A visitor cookie is required");
    const rows = mine.all(visitor.id, MINE_LIMIT) as ParcelRow[];
    const files = getFilesOf(
      ctx.db,
      rows.map((p) => p.id),
    );
    res.json({ items: rows.map((p) => parcelView(p, files.get(p.id) ?? [])) });
  });

  r.post("/parcels/:id/revoke", (req, res) => {
    const actor = requireOwner(ctx, req, req.params.id);
    const id = req.params.id;
    if (revoke.run(ctx.now(), id).changes === 1) {
      // Partial data of files not being written right now goes at once; a running PUT
      // removes its own temporary file when it notices the session ended.
      for (const f of pendingFiles.all(id) as Array<{ id: string }>) {
        if (!ctx.activity.uploading.has(f.id)) ctx.storage.clearTemp(f.id);
      }
      ctx.scheduleReclaim();
      ctx.audit(req, actor, "parcel.revoke", `parcel:${id}`);
    }
    const p = ownedParcel(ctx, id);
    res.json(parcelView(p, getFiles(ctx.db, id)));
  });

  r.post("/parcels/:id/code", (req, res) => {
    const actor = requireOwner(ctx, req, req.params.id);
    const id = req.params.id;
    const { parcel, code } = ctx.db
      .transaction(() => {
        const p = ownedParcel(ctx, id);
        if (p.state !== "published")
          throw new HttpError(
            409,
            "parcel.not_published",
            "A new code can only be issued for a published parcel",
          );
        const issued = issueCode(ctx, id);
        return { parcel: ownedParcel(ctx, id), code: issued };
      })
      .immediate();
    ctx.audit(req, actor, "parcel.code", `parcel:${id}`);
    res.json(shareFields(ctx, req, code, parcel));
  });

  return r;
}
