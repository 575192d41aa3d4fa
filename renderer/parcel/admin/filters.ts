import { create } from "zustand";
import type { ParcelState } from "../../../server/contract/parcel-views.js";
import { HOUR_S, WEEK_S } from "../../../server/contract/time-units.js";

export const PAGE_SIZES = [10, 25, 50, 100] as const;

export interface ParcelQuery {
  q: string;
  state: ParcelState | "";
  pageSize: number;
  page: number;
}

export interface AuditQuery {
  action: string;
  source: string;
  target: string;
  /** datetime-local values (the administrator's zone), "" when open. */
  from: string;
  to: string;
  /** The quick range that set `from` and `to`, until either is changed by hand. */
  preset: RangePreset | "";
  pageSize: number;
  page: number;
}

interface Filters {
  parcels: ParcelQuery;
  audit: AuditQuery;
  /** Any change other than the page itself starts again at page 1. */
  setParcels(patch: Partial<ParcelQuery>): void;
  setAudit(patch: Partial<AuditQuery>): void;
}

function merge<T extends { page: number }>(old: T, patch: Partial<T>): T {
  const next = { ...old, ...patch };
  const onlyPage = Object.keys(patch).every((k) => k === "page");
  return onlyPage ? next : { ...next, page: 1 };
}

/** Kept outside the tabs, so switching tabs and back keeps the search and the page. */
export const useFilters = create<Filters>((set) => ({
  parcels: { q: "", state: "", pageSize: 10, page: 1 },
  audit: {
    action: "",
    source: "",
    target: "",
    from: "",
    to: "",
    preset: "",
    pageSize: 20,
    page: 1,
  },
  setParcels: (patch) => set((s) => ({ parcels: merge(s.parcels, patch) })),
  setAudit: (patch) => set((s) => ({ audit: merge(s.audit, patch) })),
}));

/** `YYYY-MM-DDTHH:mm` in the local zone -> Unix seconds (start of that minute), or null. */
export function localToUnix(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  // Without a zone suffix the Date constructor reads a date-time as local time.
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** The last second covered by a datetime-local value (to the minute, or to the second). */
export function localToUnixEnd(value: string): number | null {
  const start = localToUnix(value);
  if (start === null) return null;
  return value.length > 16 ? start : start + 59;
}

export function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return "";
  }
}

/** Unix seconds as a datetime-local value in the local zone (to the minute). */
export function unixToLocal(unix: number): string {
  const d = new Date(unix * 1000);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

export type RangePreset = "hour" | "today" | "week";

/** A time range ending now, in datetime-local values. */
export function presetRange(preset: RangePreset, nowMs = Date.now()): { from: string; to: string } {
  const now = Math.floor(nowMs / 1000);
  let from = now - HOUR_S;
  if (preset === "week") from = now - WEEK_S;
  if (preset === "today") {
    const midnight = new Date(nowMs);
    midnight.setHours(0, 0, 0, 0);
    from = Math.floor(midnight.getTime() / 1000);
  }
  return { from: unixToLocal(from), to: unixToLocal(now) };
}
