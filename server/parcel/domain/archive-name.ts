/**
 * The file name of a parcel's "download all" ZIP, as a person would name it: after the
 * parcel (the day it was sent, how many files), in the reader's language, never after its id.
 */

export type ArchiveLang = "en" | "zh-CN";

/**
 * The language a request asks for: an explicit `lang` query value (the page's own choice)
 * wins over `Accept-Language`, read by its highest-weighted tag. Chinese or English.
 */
export function archiveLang(query: unknown, acceptLanguage: string | undefined): ArchiveLang {
  if (typeof query === "string" && query !== "") {
    return query.toLowerCase().startsWith("zh") ? "zh-CN" : "en";
  }
  let best = "";
  let bestQ = 0;
  for (const part of (acceptLanguage ?? "").split(",")) {
    const [tag, ...params] = part.trim().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (tag && Number.isFinite(q) && q > bestQ) {
      best = tag.toLowerCase();
      bestQ = q;
    }
  }
  return best.startsWith("zh") ? "zh-CN" : "en";
}

/**
 * The offset of the reader's clock from UTC in minutes (east positive), as the pickup page
 * sends it (`utc_offset`); null when absent or not a plausible offset, and then the name uses
 * this machine's own zone (the gateway's, normally the household's).
 */
export function archiveOffset(query: unknown): number | null {
  if (typeof query !== "string" || !/^-?\d{1,4}$/.test(query)) return null;
  const minutes = Number(query);
  return Math.abs(minutes) <= 14 * 60 ? minutes : null;
}

/** `YYYY-MM-DD` of Unix seconds, at `offset` minutes from UTC or in this machine's zone. */
function dayOf(unix: number, offset: number | null): string {
  const two = (n: number) => String(n).padStart(2, "0");
  if (offset === null) {
    const d = new Date(unix * 1000);
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
  }
  return new Date((unix + offset * 60) * 1000).toISOString().slice(0, 10);
}

/**
 * The parcel as people tell parcels apart: the day it was sent and how many files it holds,
 * `Parcel 2026-05-14 (3 files).zip` (`包裹 2026-05-14（3 个文件）.zip`). Not the first file's
 * name: an archive called after one of its files reads as that file alone.
 */
export function archiveName(
  sentAt: number,
  files: number,
  lang: ArchiveLang = "en",
  offset: number | null = null,
): string {
  const day = dayOf(sentAt, offset);
  if (lang === "zh-CN") return `包裹 ${day}（${files} 个文件）.zip`;
  return `Parcel ${day} (${files} ${files === 1 ? "file" : "files"}).zip`;
}
