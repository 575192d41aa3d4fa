import { DomainError, isDiskFull } from "../../domain-errors.js";
import type { ReceiveError } from "../storage/receive.js";

/** The upload session has ended (published, revoked, expired) or is past its deadline. */
export const uploadClosed = () =>
  new DomainError("conflict", "upload.closed", "This parcel is no longer accepting uploads");

/** Another PUT or PATCH of the file is running (one writer per file). */
export const uploadBusy = () =>
  new DomainError("conflict", "upload.busy", "This file is already being uploaded");

/**
 * The file was left out of its upload (`DELETE /uploads/:id/files/:file`) while a PUT or PATCH
 * of it was receiving or storing its bytes: nothing of them is kept.
 */
export const fileRemoved = () =>
  new DomainError(
    "conflict",
    "upload.file_removed",
    "This file was taken out of the upload while it was being sent",
  );

/** The file named is not one of this parcel's. */
export const noSuchFile = () =>
  new DomainError("not_found", "parcel.file_not_found", "No such file in this parcel");

/**
 * What a body that could not be received (PUT, and PATCH of a resumable upload) is said as.
 * A refusal made while the bytes came in (the daily allowance) is passed on as it is.
 */
export function receiveFailure(err: ReceiveError): DomainError {
  switch (err.kind) {
    case "cut-off":
      return err.cause instanceof DomainError
        ? err.cause
        : new DomainError("invalid", "upload.cut_off", err.message);
    case "too-long":
      return new DomainError("too_large", "upload.too_long", err.message);
    case "slow":
      return new DomainError(
        "timeout",
        "upload.slow",
        "The upload was too slow and has been stopped; send the whole file again",
      );
    case "stopped":
      return uploadClosed();
    case "io":
      return isDiskFull(err)
        ? new DomainError(
            "limit",
            "upload.disk_full",
            "There is not enough free disk space to store this file",
            { cause: err },
          )
        : new DomainError("failed", "upload.store_failed", "The file could not be stored", {
            cause: err,
          });
    default:
      return new DomainError("invalid", "upload.aborted", err.message);
  }
}
