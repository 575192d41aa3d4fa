import type { Lang } from "../../shared/lang.js";
import type { AdminKey, AT } from "./i18n.js";

/** Unix seconds as a local date and time. */
export function formatTime(unix: number | null, lang: Lang, seconds = false): string {
  if (unix === null) return "—";
  return new Date(unix * 1000).toLocaleString(lang, {
    dateStyle: "medium",
    timeStyle: seconds ? "medium" : "short",
  });
}

/** "1 file" or "3 files": a counting sentence with {n}, the number written for the reader. */
export function countText(n: number, key: AdminKey, t: AT, lang: Lang): string {
  return t(key, { n: formatCount(n, lang) });
}

/** 12,345 / 12,345 in the page's language. */
export function formatCount(n: number, lang: Lang): string {
  return n.toLocaleString(lang);
}
