import { describe, expect, it } from "vitest";
import { parsePageQuery, resolvePage } from "../../server/http/pagination.js";
import { HttpError } from "../../server/http/errors.js";

describe("pagination", () => {
  it("clamps a page beyond the last to the last page", () => {
    expect(resolvePage(25, { page: 9, pageSize: 10 })).toEqual({ page: 3, pages: 3, offset: 20 });
  });
  it("answers page 1 of 1 for an empty result", () => {
    expect(resolvePage(0, { page: 4, pageSize: 10 })).toEqual({ page: 1, pages: 1, offset: 0 });
  });
  it("rejects non-integer and out-of-range values", () => {
    for (const q of [
      { page: "1.5" },
      { page: "0" },
      { page_size: "101" },
      { page_size: "x" },
      { page_size: "0" },
    ]) {
      expect(() => parsePageQuery(q, 10)).toThrow(HttpError);
    }
    expect(parsePageQuery({}, 20)).toEqual({ page: 1, pageSize: 20 });
  });
});
