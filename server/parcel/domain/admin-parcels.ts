import { pageResult, type PageRequest, type PageResult } from "../../paging.js";
import { DomainError } from "../../domain-errors.js";
import type { ParcelDomain } from "./ports.js";
import type { ParcelFilter } from "../repos/admin-parcels.js";
import {
  LIVE_STATES,
  type AdminParcelView,
  type FileRow,
  type ParcelRow,
} from "../repos/parcels.js";
import { adminParcelView, searchNames } from "./parcel-views.js";
import { DAY_S } from "../../contract/time-units.js";
import { issueCode } from "./share.js";

/** `GET /admin/parcels`: one page of parcels with their files. */
export function listParcels(
  ctx: ParcelDomain,
  filter: ParcelFilter,
  req: PageRequest,
): PageResult<AdminParcelView> {
  const found = ctx.repos.admin.page(filter, req);
  const items = found.rows.map((row) => adminParcelView(row, found.files.get(row.id) ?? []));
  return pageResult(items, found.total, found.page, req.pageSize, found.pages);
}

function mustGetParcel(ctx: ParcelDomain, id: string): ParcelRow {
  const row = ctx.repos.parcels.byId(id);
  if (!row) throw new DomainError("not_found", "parcel.not_found", "No such parcel");
  return row;
}

/** Drops the partial upload data of files not being written right now. */
function clearPartials(ctx: ParcelDomain, files: FileRow[]): void {
  for (const f of files) {
    if (f.state !== "ready" && !ctx.activity.uploading.has(f.id)) ctx.storage.clearTemp(f.id);
  }
}

/** Admin delete: the parcel becomes `revoked`; its bytes are reclaimed in the background. */
export function deleteParcel(ctx: ParcelDomain, id: string): AdminParcelView {
  const { repos } = ctx;
  const view = repos.transaction(() => {
    const row = mustGetParcel(ctx, id);
    if (row.state !== "revoked") repos.admin.revoke(id, ctx.now());
    const files = repos.parcels.files(id);
    if (row.state === "uploading") clearPartials(ctx, files);
    return adminParcelView(mustGetParcel(ctx, id), files);
  });
  ctx.scheduleReclaim();
  return view;
}

/**
 * Admin delete of one file reference: the row goes, the parcel's names and open reservation
 * follow, and removing the last file revokes a live parcel. Answers the parcel as it now stands.
 */
export function deleteFile(ctx: ParcelDomain, fileId: string): AdminParcelView {
  const { repos } = ctx;
  const view = repos.transaction(() => {
    const file = repos.parcels.file(fileId);
    if (!file) throw new DomainError("not_found", "parcel.file_not_found", "No such file");
    const parcel = mustGetParcel(ctx, file.parcel_id);
    repos.admin.deleteFile(fileId);
    const rest = repos.parcels.files(parcel.id);
    const reserved =
      parcel.state === "uploading" && file.state !== "ready"
        ? Math.max(0, parcel.reserved_bytes - file.size)
        : parcel.reserved_bytes;
    repos.admin.setNamesAndReserved(parcel.id, searchNames(rest.map((f) => f.name)), reserved);
    if (rest.length === 0 && LIVE_STATES.includes(parcel.state))
      repos.admin.revoke(parcel.id, ctx.now());
    if (parcel.state === "uploading") clearPartials(ctx, [file]);
    return adminParcelView(mustGetParcel(ctx, parcel.id), rest);
  });
  ctx.scheduleReclaim();
  return view;
}

/**
 * Reissue of a parcel in `review`: a new code, the current default term and downloads, the
 * wrong-password count reset, the password kept. Returns the row and the plain code.
 */
export function reissueParcel(
  ctx: ParcelDomain,
  id: string,
): { row: ParcelRow; files: FileRow[]; code: string } {
  const { repos } = ctx;
  return repos.transaction(() => {
    const row = mustGetParcel(ctx, id);
    if (row.state !== "review")
      throw new DomainError(
        "conflict",
        "parcel.not_in_review",
        "Only a parcel awaiting review can be reissued",
      );
    const policy = ctx.policy();
    const code = issueCode(ctx, id);
    repos.admin.reissue(
      id,
      policy.default_days,
      ctx.now() + policy.default_days * DAY_S,
      policy.default_downloads,
    );
    return { row: mustGetParcel(ctx, id), files: repos.parcels.files(id), code };
  });
}
