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

/** "1 file" or "3 files": the singular key for exactly one, else the plural with {n}. */
export function countText(n: number, one: AdminKey, many: AdminKey, t: AT, lang: Lang): string {
  return n === 1 ? t(one) : t(many, { n: formatCount(n, lang) });
}

/** 12,345 / 12,345 in the page's language. */
export function formatCount(n: number, lang: Lang): string {
  return n.toLocaleString(lang);
}
