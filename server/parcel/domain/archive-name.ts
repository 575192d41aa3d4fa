/**
 * The file name of a parcel's "download all" ZIP, as a person would name it: after the
 * parcel's first file (`report.pdf.zip`, `report.pdf and 2 more.zip`), never after its id.
 */

export type ArchiveLang = "en" | "zh-CN";

/** Characters Windows refuses in file names (the upload rules already refuse `/`, `\`, controls). */
const UNSAFE = /[<>:"|?*]/g;

/** Room for the name: well under the 255 bytes most file systems allow. */
const MAX_BYTES = 200;

/** Cuts `text` to at most `bytes` UTF-8 bytes on a character boundary, marking the cut with `…`. */
function fitBytes(text: string, bytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= bytes) return text;
  const room = bytes - Buffer.byteLength("…", "utf8");
  let out = "";
  let used = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, "utf8");
    if (used + size > room) break;
    out += ch;
    used += size;
  }
  return `${out.trimEnd()}…`;
}

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
 * `report.pdf.zip` for one file; `report.pdf and 2 more.zip` (`report.pdf 等 3 个文件.zip`)
 * for more. Characters some file systems refuse become `_`, and a long first name is cut so
 * the whole name stays short enough for any of them.
 */
export function archiveName(names: readonly string[], lang: ArchiveLang = "en"): string {
  const first = (names[0] ?? "files")
    .replace(UNSAFE, "_")
    .replace(/[. ]+$/, "")
    .trim();
  const stem = first === "" ? "files" : first;
  const rest = names.length - 1;
  const tail =
    rest <= 0
      ? ".zip"
      : lang === "zh-CN"
        ? ` 等 ${names.length} 个文件.zip`
        : ` and ${rest} more.zip`;
  return fitBytes(stem, MAX_BYTES - Buffer.byteLength(tail, "utf8")) + tail;
}
