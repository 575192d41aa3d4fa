import { afterEach, describe, expect, it } from "vitest";
import { archiveLang, archiveName } from "../../server/parcel/domain/archive-name.js";
import type { Harness } from "../helpers/parcel-harness.js";
import { recipient, shareParcel, startPickup } from "./parcel-pickup-support.js";

let h: Harness;
afterEach(async () => h?.close(true));

/** The name a browser saves: the exact `filename*` value, decoded. */
function savedName(disposition: string | string[] | undefined): string {
  const match = /filename\*=UTF-8''([^;]+)/.exec(String(disposition));
  return decodeURIComponent(match?.[1] ?? "");
}

function fallbackName(disposition: string | string[] | undefined): string {
  return /filename="([^"]*)"/.exec(String(disposition))?.[1] ?? "";
}

describe("the name of the download-all ZIP", () => {
  it("is the first file's name and how many more, never the parcel id", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "Quarterly report.pdf": 5, "b.txt": 3, "c.txt": 1 });
    const jar = await recipient(h, p.code);
    const r = await h.request("GET", "/pickup/archive", { jar });
    expect(r.status).toBe(200);
    expect(savedName(r.headers["content-disposition"])).toBe("Quarterly report.pdf and 2 more.zip");
    expect(String(r.headers["content-disposition"])).not.toContain(p.id);
    const head = await h.request("HEAD", "/pickup/archive", { jar });
    expect(head.headers["content-disposition"]).toBe(r.headers["content-disposition"]);
  });

  it("speaks Chinese to a Chinese page or browser, with an ASCII-only fallback", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "报告 2026.pdf": 5, "照片.jpg": 3 });
    const jar = await recipient(h, p.code);
    const byHeader = await h.request("HEAD", "/pickup/archive", {
      jar,
      headers: { "accept-language": "en;q=0.5, zh-CN;q=0.9" },
    });
    expect(savedName(byHeader.headers["content-disposition"])).toBe(
      "报告 2026.pdf 等 2 个文件.zip",
    );
    const fallback = fallbackName(byHeader.headers["content-disposition"]);
    expect(fallback).toMatch(/^[\x20-\x7e]+\.zip$/);
    expect(fallback).not.toMatch(/["\\%]/);
    // The page's own language choice wins over the browser's.
    const byQuery = await h.request("HEAD", "/pickup/archive?lang=en", {
      jar,
      headers: { "accept-language": "zh-CN" },
    });
    expect(savedName(byQuery.headers["content-disposition"])).toBe("报告 2026.pdf and 1 more.zip");
  });

  it("is safe for file systems: no reserved characters, trailing dots cut, short enough", () => {
    expect(archiveName(['a<b>:"c"|d?*.txt', "x"])).toBe("a_b___c__d__.txt and 1 more.zip");
    expect(archiveName(["notes. . ", "x", "y"])).toBe("notes and 2 more.zip");
    expect(archiveName(["only.pdf"])).toBe("only.pdf.zip");
    expect(archiveName(["..."])).toBe("files.zip");
    const long = archiveName(["東".repeat(85), "x"], "zh-CN");
    expect(Buffer.byteLength(long, "utf8")).toBeLessThanOrEqual(200);
    expect(long).toMatch(/^東+… 等 2 个文件\.zip$/);
  });

  it("reads the language from the query first, then the most wanted Accept-Language tag", () => {
    expect(archiveLang(undefined, undefined)).toBe("en");
    expect(archiveLang(undefined, "zh-TW,en;q=0.8")).toBe("zh-CN");
    expect(archiveLang(undefined, "en-GB, zh;q=0.9")).toBe("en");
    expect(archiveLang("zh-CN", "en")).toBe("zh-CN");
    expect(archiveLang(["zh", "en"], "en")).toBe("en");
  });
});
