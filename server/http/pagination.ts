import { HttpError } from "./errors.js";

export interface PageRequest {
  page: number;
  pageSize: number;
}

export interface PageResult<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
  pages: number;
}

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

/**
 * Clamps the requested page to the last page (an empty result is page 1 of 1) and returns
 * the offset to load, so only the requested page is read from storage.
 */
export function resolvePage(
  total: number,
  req: PageRequest,
): { page: number; pages: number; offset: number } {
  const pages = Math.max(1, Math.ceil(total / req.pageSize));
  const page = Math.min(req.page, pages);
  return { page, pages, offset: (page - 1) * req.pageSize };
}

export function pageResult<T>(
  items: T[],
  total: number,
  page: number,
  pageSize: number,
  pages: number,
): PageResult<T> {
  return { items, total, page, page_size: pageSize, pages };
}
