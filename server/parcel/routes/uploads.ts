import type { Router } from "express";
import { HttpError } from "../../http/errors.js";
import type { Actor, ParcelContext } from "../context.js";
import { admissionRefusal, parseManifest, readUsage } from "../domain/admission.js";
import { issueManageToken } from "../domain/manage-token.js";
import { randomId, sha256Hex, hashPassword } from "../domain/secrets.js";
import { issueCode, shareFields } from "../domain/share.js";
import { jsonBody } from "../http/guards.js";
import { clientIp, currentVisitor, requireOwner } from "../http/identity.js";
import { getFiles, getParcel, parcelView, searchNames, type ParcelRow } from "../repos/parcels.js";
import { secondsUntilUtcMidnight, TrafficRepo } from "../repos/traffic.js";
import { putFileHandler } from "./upload-file.js";
import { DAY_S, HOUR_S } from "../../contract/time-units.js";

/** An upload session lives one hour unless published. */
export const SESSION_SECONDS = HOUR_S;

/** The parcel of an owner request; 404 when it vanished between auth and read. */
export function ownedParcel(ctx: ParcelContext, id: string): ParcelRow {
  const p = getParcel(ctx.db, id);
  if (!p) throw new HttpError(404, "parcel.not_found", "No such parcel");
  return p;
}

/** `POST /uploads`, `GET /uploads/:id`, `PUT /uploads/:id/files/:file`, publish. */
export function uploadsRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router();
  const traffic = new TrafficRepo(ctx.db);
  const insertParcel = ctx.db.prepare(
    `INSERT INTO parcels (id, state, owner_visitor, token_hash, password_hash, days,
       downloads_allowed, downloads_left, renew, created_at, sort_at, expires_at,
       reserved_bytes, client_ip, search_names)
     VALUES (?, 'uploading', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertFile = ctx.db.prepare(
    "INSERT INTO files (id, parcel_id, idx, name, size, state) VALUES (?, ?, ?, ?, ?, 'pending')",
  );
  const publish = ctx.db.prepare(
    `UPDATE parcels SET state = 'published', sent_at = ?, sort_at = ?, expires_at = ?,
       reserved_bytes = 0 WHERE id = ? AND state = 'uploading'`,
  );

  r.post("/uploads", jsonBody, async (req, res) => {
    const policy = ctx.policy();
    if (!policy.uploads_enabled)
      throw new HttpError(403, "upload.disabled", "Uploads are switched off by the administrator");
    const manifest = parseManifest(policy, req.body);
    const ip = clientIp(req);
    const now = ctx.now();
    const used = traffic.used(ip, now);
    if (used + manifest.totalBytes > policy.daily_upload_bytes) {
      const wait = secondsUntilUtcMidnight(now);
      throw new HttpError(
        429,
        "upload.daily_limit",
        "Today's upload allowance for this address is used up",
        {
          headers: { "Retry-After": String(wait) },
        },
      );
    }
    const visitor = currentVisitor(ctx, req);
    const passwordHash = manifest.password ? await hashPassword(manifest.password) : null;
    const id = randomId();
    const token = issueManageToken(ctx.keys.cookie, id);
    const files = manifest.files.map((f) => ({ id: randomId(), name: f.name, size: f.size }));
    const expiresAt = ctx.now() + SESSION_SECONDS;
    // Admission reads usage and reserves in one transaction, so two concurrent sessions
    // can never both take the last free space.
    ctx.db
      .transaction(() => {
        const usage = readUsage(ctx.db, ctx.diskFree(), ctx.now());
        const refusal = admissionRefusal(
          usage,
          { bytes: manifest.totalBytes, files: files.length },
          ctx.runtime(),
        );
        if (refusal) throw refusal;
        insertParcel.run(
          id,
          visitor?.id ?? null,
          sha256Hex(token),
          passwordHash,
          manifest.days,
          manifest.downloads,
          manifest.downloads,
          manifest.renew ? 1 : 0,
          ctx.now(),
          ctx.now(),
          expiresAt,
          manifest.totalBytes,
          ip,
          searchNames(files.map((f) => f.name)),
        );
        files.forEach((f, i) => insertFile.run(f.id, id, i, f.name, f.size));
      })
      .immediate();
    const actor: Actor = visitor ? { kind: "visitor", id: visitor.id } : { kind: "token" };
    ctx.audit(req, actor, "upload.create", `parcel:${id}`, {
      files: files.length,
      bytes: manifest.totalBytes,
    });
    res.status(201).json({ id, manage_token: token, files, expires_at: expiresAt });
  });

  r.get("/uploads/:id", (req, res) => {
    requireOwner(ctx, req, req.params.id);
    const p = ownedParcel(ctx, req.params.id);
    res.json(parcelView(p, getFiles(ctx.db, p.id)));
  });

  r.put("/uploads/:id/files/:file", putFileHandler(ctx, traffic));

  r.post("/uploads/:id/publish", (req, res) => {
    const actor = requireOwner(ctx, req, req.params.id);
    const id = req.params.id;
    const { parcel, code } = ctx.db
      .transaction(() => {
        const p = ownedParcel(ctx, id);
        // Only the first publish hands out a code; later ones get the plain pickup page.
        if (p.sent_at !== null) return { parcel: p, code: null };
        if (p.state !== "uploading")
          throw new HttpError(
            409,
            "upload.session_ended",
            "This upload session has ended and cannot be published",
          );
        const pending = getFiles(ctx.db, id).filter((f) => f.state !== "ready");
        if (pending.length > 0)
          throw new HttpError(
            409,
            "upload.not_ready",
            `${pending.length} file(s) are not uploaded yet`,
            { params: { count: pending.length } },
          );
        const now = ctx.now();
        publish.run(now, now, now + p.days * DAY_S, id);
        const issued = issueCode(ctx, id);
        // Recorded in the same transaction: a publish is never without its audit record.
        ctx.audit(req, actor, "parcel.publish", `parcel:${id}`);
        return { parcel: ownedParcel(ctx, id), code: issued };
      })
      .immediate();
    const files = getFiles(ctx.db, id);
    // Only the first publish finishes an upload (it is the one that hands out a code).
    if (code !== null)
      ctx.emit({
        kind: "upload.finished",
        parcelId: id,
        files: files.map((f) => f.name),
        at: ctx.clock.now(),
      });
    res.json({
      ...parcelView(parcel, files),
      ...shareFields(ctx, req, code, parcel),
    });
  });

  return r;
}
