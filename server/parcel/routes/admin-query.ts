import { FILTER_MAX } from "../../contract/parcel-admin.js";
import { HttpError } from "../../http/errors.js";

/** A query parameter given at most once, as a string (repeated -> 400). */
export function queryString(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string")
    throw new HttpError(400, "admin.query_repeated", `${name} must be given once`, {
      params: { field: name },
    });
  if (v.length > FILTER_MAX)
    throw new HttpError(400, "admin.query_too_long", `${name} is too long`, {
      params: { field: name },
    });
  return v;
}
