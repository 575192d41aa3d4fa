import { DomainError, statusOfKind } from "../../server/domain-errors.js";
import type { HttpError } from "../../server/http/errors.js";
import { PARCEL_STATUS } from "../../server/parcel/error-status.js";
import { PROXY_STATUS } from "../../server/proxy/error-status.js";

/** The status the parcel service answers an error with (its table for a domain error). */
export function parcelStatus(err: DomainError | HttpError): number {
  return err instanceof DomainError ? statusOfKind(err.kind, PARCEL_STATUS) : err.status;
}

/** The status the proxy service answers an error with (its table for a domain error). */
export function proxyStatus(err: DomainError | HttpError): number {
  return err instanceof DomainError ? statusOfKind(err.kind, PROXY_STATUS) : err.status;
}
