import type { Lang } from "./lang.js";
import { DAY_S, HOUR_S, MINUTE_S } from "../../server/contract/time-units.js";

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "—";
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? Math.round(v) : v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${UNITS[i]}`;
}

export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** 3 d 4 h, 5 h 2 min, 4 min 3 s: the two largest parts. */
export function formatDuration(seconds: number, lang: Lang): string {
  const s = Math.max(0, Math.floor(seconds));
  const parts: Array<[number, string, string]> = [
    [Math.floor(s / DAY_S), "d", "天"],
    [Math.floor((s % DAY_S) / HOUR_S), "h", "小时"],
    [Math.floor((s % HOUR_S) / MINUTE_S), "min", "分"],
    [s % MINUTE_S, "s", "秒"],
  ];
  const first = parts.findIndex(([v]) => v > 0);
  if (first < 0) return lang === "zh-CN" ? "0 秒" : "0 s";
  return parts
    .slice(first, first + 2)
    .filter(([v]) => v > 0)
    .map(([v, e, z]) => (lang === "zh-CN" ? `${v} ${z}` : `${v} ${e}`))
    .join(" ");
}

export function formatDateTime(value: string | number | null | undefined, lang: Lang): string {
  if (value === null || value === undefined || value === "") return "—";
  const d = typeof value === "number" ? new Date(value) : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return d.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
}

export function formatDate(unixSeconds: number, lang: Lang): string {
  return new Date(unixSeconds * 1000).toLocaleDateString(lang, { dateStyle: "medium" });
}
