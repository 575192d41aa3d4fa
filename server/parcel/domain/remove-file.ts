import { DomainError } from "../../domain-errors.js";
import type { ParcelDomain } from "./ports.js";
import type { FileRow, ParcelRow } from "../repos/parcels.js";
import { searchNames } from "./parcel-views.js";

/**
 * The sender leaves one file out of an upload that is still open: its row goes, its part of
 * the reservation is released, and the rest of the parcel goes on (the manifest shrinks; it
 * never grows). The last file cannot go: the upload is cancelled instead. Decided in one
 * synchronous step: a running upload of the file is stopped at once (it then finds no file to
 * store into, and removes its bytes as it ends).
 */
export function removeUploadFile(
  ctx: ParcelDomain,
  parcelId: string,
  fileId: string,
): { parcel: ParcelRow; files: FileRow[]; removed: FileRow } {
  const { repos } = ctx;
  const done = repos.transaction(() => {
    if (!repos.sessions.isOpen(parcelId, ctx.now()))
      throw new DomainError(
        "conflict",
        "upload.session_ended",
        "This upload session has ended: its files can no longer change",
      );
    const file = repos.sessions.fileOf(fileId, parcelId);
    if (!file)
      throw new DomainError("not_found", "parcel.file_not_found", "No such file in this parcel");
    const parcel = repos.parcels.byId(parcelId) as ParcelRow;
    const rest = repos.parcels.files(parcelId).filter((f) => f.id !== fileId);
    if (rest.length === 0)
      throw new DomainError(
        "conflict",
        "upload.last_file",
        "The last file of an upload cannot be removed; cancel the upload instead",
      );
    repos.admin.deleteFile(fileId);
    const reserved =
      file.state === "ready"
        ? parcel.reserved_bytes
        : Math.max(0, parcel.reserved_bytes - file.size);
    repos.admin.setNamesAndReserved(parcelId, searchNames(rest.map((f) => f.name)), reserved);
    return { parcel: repos.parcels.byId(parcelId) as ParcelRow, files: rest, removed: file };
  }, "immediate");
  // A running upload (PUT or PATCH) stopped this way removes what it wrote as it ends, like
  // one whose session ended; without one, what an earlier upload left goes now.
  const stop = ctx.activity.uploadStops.get(fileId);
  if (stop) stop();
  else ctx.storage.clearTemp(fileId);
  // Bytes of a stored file that no other file shares are no longer referenced.
  if (done.removed.state === "ready") ctx.scheduleReclaim();
  return done;
}
