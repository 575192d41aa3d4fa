import type { TrafficRange, TrafficView } from "../../contract/proxy-devices.js";
import { DAY_S, HOUR_MS, HOUR_S } from "../../contract/time-units.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import type { Grain, TrafficAdd } from "../store/traffic.js";
import { isoNow } from "../types.js";
import { hourOf, localDayOf, localDayStart } from "./devices-time.js";

/** How many buckets each range has: hours for a day, local days for a week or a month. */
const SPANS: Record<TrafficRange, { grain: Grain; count: number }> = {
  "24h": { grain: "hour", count: 24 },
  "7d": { grain: "day", count: 7 },
  "30d": { grain: "day", count: 30 },
};

/** The busiest devices a range names. */
export const TOP_DEVICES = 10;

export interface TrafficQuery {
  store: SqlProxyStore;
  range: TrafficRange;
  now: number;
  /** One device's key; absent for every device's traffic and the busiest ten. */
  key?: number;
  /** Counted and not yet written, per device key (each row names its hour and day). */
  unwritten: ReadonlyMap<number, { hours: ReadonlyMap<number, TrafficAdd> }>;
  /** A device's name as the list shows it, by key. */
  nameOf(key: number): { id: string; name: string } | null;
}

/**
 * A traffic chart's buckets, oldest first, every one of the range (zeros too): the last 24
 * hours including this one, or the last 7 or 30 local days including today. What was counted
 * and not yet written is added, so a chart never lags the database's ten seconds.
 */
export function trafficView(q: TrafficQuery): TrafficView {
  const { grain, count } = SPANS[q.range];
  const last = grain === "hour" ? hourOf(q.now) : localDayOf(q.now);
  const first = last - count + 1;
  const sums = new Map<number, { upload: number; download: number }>();
  for (let b = first; b <= last; b++) sums.set(b, { upload: 0, download: 0 });
  for (const s of q.store.traffic.buckets(grain, first, last, q.key)) {
    const into = sums.get(s.bucket);
    if (!into) continue;
    into.upload += s.upload;
    into.download += s.download;
  }
  const perDevice = new Map<number, { upload: number; download: number }>();
  if (q.key === undefined) {
    for (const s of q.store.traffic.perDevice(grain, first, last)) {
      perDevice.set(s.key, { upload: s.upload, download: s.download });
    }
  }
  for (const [key, pending] of q.unwritten) {
    if (q.key !== undefined && key !== q.key) continue;
    for (const row of pending.hours.values()) {
      const bucket = grain === "hour" ? row.hour : row.day;
      const into = sums.get(bucket);
      if (!into) continue;
      into.upload += row.upload;
      into.download += row.download;
      if (q.key !== undefined) continue;
      const d = perDevice.get(key) ?? { upload: 0, download: 0 };
      d.upload += row.upload;
      d.download += row.download;
      perDevice.set(key, d);
    }
  }
  const points = [...sums].map(([bucket, s]) => ({
    t: isoNow(grain === "hour" ? bucket * HOUR_MS : localDayStart(bucket)),
    upload: s.upload,
    download: s.download,
  }));
  const view: TrafficView = {
    range: q.range,
    bucketSeconds: grain === "hour" ? HOUR_S : DAY_S,
    points,
  };
  if (q.key === undefined) {
    const busiest = [...perDevice]
      .filter(([, s]) => s.upload + s.download > 0)
      .sort((a, b) => b[1].upload + b[1].download - (a[1].upload + a[1].download));
    // Named only until ten are found: naming reads the device and its addresses.
    view.devices = [];
    for (const [key, s] of busiest) {
      if (view.devices.length === TOP_DEVICES) break;
      const named = q.nameOf(key);
      if (named) view.devices.push({ ...named, upload: s.upload, download: s.download });
    }
  }
  return view;
}
