/**
 * Pages of a list: what a caller asks for and what it gets. Plain values, so repositories and
 * domain code page without knowing about HTTP (server/http/pagination.ts reads them from a
 * query string).
 */
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
