import { HttpError } from "../../http/errors.js";
import {
  pageResult,
  resolvePage,
  type PageRequest,
  type PageResult,
} from "../../http/pagination.js";
import type { ParcelContext } from "../context.js";
import { issueCode } from "../domain/share.js";
import {
  adminParcelView,
  getFiles,
  getFilesOf,
  getParcel,
  searchNames,
  type AdminParcelView,
  type FileRow,
  type ParcelRow,
  type ParcelState,
} from "./parcels.js";

export interface ParcelFilter {
  q?: string;
  state?: ParcelState;
}

/**
 * `GET /admin/parcels`: one COUNT and one page of ids from the order index (LIMIT/OFFSET over
 * the narrow index, not the rows), then those rows and their files. instr() instead of LIKE,
 * so nothing in `q` is a wildcard.
 */
export function listParcels(
  ctx: ParcelContext,
  filter: ParcelFilter,
  req: PageRequest,
): PageResult<AdminParcelView> {
  const { db } = ctx;
  const sql: string[] = [];
  const params: string[] = [];
  if (filter.state) {
    sql.push("state = ?");
    params.push(filter.state);
  }
  if (filter.q) {
    // Names never contain '/', which joins them in search_names: such a q can only be an id part.
    if (filter.q.includes("/")) sql.push("instr(id, ?) > 0");
    else {
      sql.push("(instr(search_names, ?) > 0 OR instr(id, ?) > 0)");
      params.push(filter.q.toLowerCase());
    }
    params.push(filter.q);
  }
  const where = sql.length > 0 ? `WHERE ${sql.join(" AND ")}` : "";
  return db.transaction(() => {
    const total = (
      db.prepare(`SELECT COUNT(*) AS n FROM parcels ${where}`).get(...params) as { n: number }
    ).n;
    const { page, pages, offset } = resolvePage(total, req);
    if (total === 0) return pageResult<AdminParcelView>([], 0, page, req.pageSize, pages);
    const ids = (
      db
        .prepare(`SELECT id FROM parcels ${where} ORDER BY sort_at DESC, id DESC LIMIT ? OFFSET ?`)
        .all(...params, req.pageSize, offset) as Array<{ id: string }>
    ).map((r) => r.id);
    const rows = db
      .prepare(`SELECT * FROM parcels WHERE id IN (${ids.map(() => "?").join(",")})`)
      .all(...ids) as ParcelRow[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const files = getFilesOf(db, ids);
    const items = ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [adminParcelView(row, files.get(id) ?? [])] : [];
    });
    return pageResult(items, total, page, req.pageSize, pages);
  })();
}

function mustGetParcel(ctx: ParcelContext, id: string): ParcelRow {
  const row = getParcel(ctx.db, id);
  if (!row) throw new HttpError(404, "parcel.not_found", "No such parcel");
  return row;
}

/** Drops the partial upload data of files not being written right now. */
function clearPartials(ctx: ParcelContext, files: FileRow[]): void {
  for (const f of files) {
    if (f.state !== "ready" && !ctx.activity.uploading.has(f.id)) ctx.storage.clearTemp(f.id);
  }
}

const revoke = `UPDATE parcels SET state = 'revoked', ended_at = COALESCE(ended_at, ?),
  reserved_bytes = 0 WHERE id = ?`;

/** Admin delete: the parcel becomes `revoked`; its bytes are reclaimed in the background. */
export function deleteParcel(ctx: ParcelContext, id: string): AdminParcelView {
  const { db } = ctx;
  const view = db.transaction(() => {
    const row = mustGetParcel(ctx, id);
    if (row.state !== "revoked") db.prepare(revoke).run(ctx.now(), id);
    const files = getFiles(db, id);
    if (row.state === "uploading") clearPartials(ctx, files);
    return adminParcelView(mustGetParcel(ctx, id), files);
  })();
  ctx.scheduleReclaim();
  return view;
}

/**
 * Admin delete of one file reference: the row goes, the parcel's names and open reservation
 * follow, and removing the last file revokes a live parcel. Answers the parcel as it now stands.
 */
export function deleteFile(ctx: ParcelContext, fileId: string): AdminParcelView {
  const { db } = ctx;
  const view = db.transaction(() => {
    const file = db.prepare("SELECT * FROM files WHERE id = ?").get(fileId) as FileRow | undefined;
    if (!file) throw new HttpError(404, "parcel.file_not_found", "No such file");
    const parcel = mustGetParcel(ctx, file.parcel_id);
    db.prepare("DELETE FROM files WHERE id = ?").run(fileId);
    const rest = getFiles(db, parcel.id);
    const reserved =
      parcel.state === "uploading" && file.state !== "ready"
        ? Math.max(0, parcel.reserved_bytes - file.size)
        : parcel.reserved_bytes;
    db.prepare("UPDATE parcels SET search_names = ?, reserved_bytes = ? WHERE id = ?").run(
      searchNames(rest.map((f) => f.name)),
      reserved,
      parcel.id,
    );
    const live = ["uploading", "published", "review"].includes(parcel.state);
    if (rest.length === 0 && live) db.prepare(revoke).run(ctx.now(), parcel.id);
    if (parcel.state === "uploading") clearPartials(ctx, [file]);
    return adminParcelView(mustGetParcel(ctx, parcel.id), rest);
  })();
  ctx.scheduleReclaim();
  return view;
}

/**
 * Reissue of a parcel in `review`: a new code, the current default term and downloads, the
 * wrong-password count reset, the password kept. Returns the row and the plain code.
 */
export function reissueParcel(
  ctx: ParcelContext,
  id: string,
): { row: ParcelRow; files: FileRow[]; code: string } {
  const { db } = ctx;
  return db.transaction(() => {
    const row = mustGetParcel(ctx, id);
    if (row.state !== "review")
      throw new HttpError(
        409,
        "parcel.not_in_review",
        "Only a parcel awaiting review can be reissued",
      );
    const policy = ctx.policy();
    const code = issueCode(ctx, id);
    db.prepare(
      `UPDATE parcels SET state = 'published', days = ?, expires_at = ?, downloads_allowed = ?,
       downloads_left = ?, wrong_passwords = 0, ended_at = NULL WHERE id = ?`,
    ).run(
      policy.default_days,
      ctx.now() + policy.default_days * 86400,
      policy.default_downloads,
      policy.default_downloads,
      id,
    );
    return { row: mustGetParcel(ctx, id), files: getFiles(db, id), code };
  })();
}
