import { HttpError } from "./errors.js";

import type { PageRequest } from "../paging.js";

export { pageResult, resolvePage, type PageRequest, type PageResult } from "../paging.js";

function strictInt(raw: unknown, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "string" || !/^-?\d{1,15}$/.test(raw)) {
    throw new HttpError(400, "request.not_integer", `${name} must be an integer`, {
      params: { field: name },
    });
  }
  return Number(raw);
}

/** Reads `page` and `page_size` from a query: integers, page >= 1, page_size 1..100. */
export function parsePageQuery(
  query: Record<string, unknown>,
  defaultPageSize: number,
): PageRequest {
  const page = strictInt(query.page, "page") ?? 1;
  const pageSize = strictInt(query.page_size, "page_size") ?? defaultPageSize;
  if (page < 1) throw new HttpError(400, "request.page", "page must be 1 or more");
  if (pageSize < 1 || pageSize > 100)
    throw new HttpError(400, "request.page_size", "page_size must be between 1 and 100", {
      params: { max: 100 },
    });
  return { page, pageSize };
}

/** Reads an optional integer query parameter (Unix seconds and the like). */
export function parseIntQuery(query: Record<string, unknown>, name: string): number | undefined {
  return strictInt(query[name], name);
}
