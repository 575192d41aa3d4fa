import { afterEach, describe, expect, it } from "vitest";
import {
  archiveLang,
  archiveName,
  archiveOffset,
} from "../../server/parcel/domain/archive-name.js";
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

/** `YYYY-MM-DD` of Unix seconds at `offset` minutes from UTC. */
function dayAt(unix: number, offset: number): string {
  return new Date((unix + offset * 60) * 1000).toISOString().slice(0, 10);
}

describe("the name of the download-all ZIP", () => {
  it("is the parcel's send day and file count, never a file's name or the parcel id", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "Quarterly report.pdf": 5, "b.txt": 3, "c.txt": 1 });
    const sentAt = p.publish.json.sent_at as number;
    const jar = await recipient(h, p.code);
    const r = await h.request("GET", "/pickup/archive?utc_offset=0", { jar });
    expect(r.status).toBe(200);
    const name = savedName(r.headers["content-disposition"]);
    expect(name).toBe(`Parcel ${dayAt(sentAt, 0)} (3 files).zip`);
    expect(name).not.toContain("Quarterly");
    expect(String(r.headers["content-disposition"])).not.toContain(p.id);
    const head = await h.request("HEAD", "/pickup/archive?utc_offset=0", { jar });
    expect(head.headers["content-disposition"]).toBe(r.headers["content-disposition"]);
  });

  it("uses the reader's calendar when the page sends its offset, and ignores nonsense", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "a.txt": 5, "b.txt": 3 });
    const sentAt = p.publish.json.sent_at as number;
    const jar = await recipient(h, p.code);
    // 14 hours apart: on either side of the date line one of them is another day.
    for (const offset of [-600, 840]) {
      const r = await h.request("HEAD", `/pickup/archive?utc_offset=${offset}`, { jar });
      expect(savedName(r.headers["content-disposition"])).toBe(
        `Parcel ${dayAt(sentAt, offset)} (2 files).zip`,
      );
    }
    for (const junk of ["abc", "100000", "1e3", "-", ""]) {
      const r = await h.request("HEAD", `/pickup/archive?utc_offset=${junk}`, { jar });
      expect(r.status).toBe(200);
      expect(savedName(r.headers["content-disposition"])).toMatch(
        /^Parcel \d{4}-\d\d-\d\d \(2 files\)\.zip$/,
      );
    }
  });

  it("speaks Chinese to a Chinese page or browser, with an ASCII-only fallback", async () => {
    h = await startPickup();
    const p = await shareParcel(h, { "报告 2026.pdf": 5, "照片.jpg": 3 });
    const day = dayAt(p.publish.json.sent_at as number, 480);
    const jar = await recipient(h, p.code);
    const byHeader = await h.request("HEAD", "/pickup/archive?utc_offset=480", {
      jar,
      headers: { "accept-language": "en;q=0.5, zh-CN;q=0.9" },
    });
    expect(savedName(byHeader.headers["content-disposition"])).toBe(`包裹 ${day}（2 个文件）.zip`);
    const fallback = fallbackName(byHeader.headers["content-disposition"]);
    expect(fallback).toMatch(/^[\x20-\x7e]+\.zip$/);
    expect(fallback).not.toMatch(/["\\%]/);
    // The page's own language choice wins over the browser's.
    const byQuery = await h.request("HEAD", "/pickup/archive?lang=en&utc_offset=480", {
      jar,
      headers: { "accept-language": "zh-CN" },
    });
    expect(savedName(byQuery.headers["content-disposition"])).toBe(`Parcel ${day} (2 files).zip`);
  });

  it("counts one file in the singular and reads only plausible offsets", () => {
    const noon = Date.UTC(2026, 4, 14, 12) / 1000;
    expect(archiveName(noon, 1, "en", 0)).toBe("Parcel 2026-05-14 (1 file).zip");
    expect(archiveName(noon, 1, "zh-CN", 0)).toBe("包裹 2026-05-14（1 个文件）.zip");
    expect(archiveName(noon, 2, "en", 13 * 60)).toBe("Parcel 2026-05-15 (2 files).zip");
    expect(archiveOffset("-300")).toBe(-300);
    expect(archiveOffset("841")).toBe(null);
    expect(archiveOffset(["60"])).toBe(null);
    expect(archiveOffset(undefined)).toBe(null);
  });

  it("reads the language from the query first, then the most wanted Accept-Language tag", () => {
    expect(archiveLang(undefined, undefined)).toBe("en");
    expect(archiveLang(undefined, "zh-TW,en;q=0.8")).toBe("zh-CN");
    expect(archiveLang(undefined, "en-GB, zh;q=0.9")).toBe("en");
    expect(archiveLang("zh-CN", "en")).toBe("zh-CN");
    expect(archiveLang(["zh", "en"], "en")).toBe("en");
  });
});
