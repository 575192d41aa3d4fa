import { describe, expect, it } from "vitest";
import { trafficView } from "../../server/proxy/domain/devices-traffic.js";
import { hourOf, localDayOf } from "../../server/proxy/domain/devices-time.js";
import type { SqlProxyStore } from "../../server/proxy/store/proxy-store.js";
import type { BucketSum, DeviceSum, Grain, TrafficAdd } from "../../server/proxy/store/traffic.js";

/**
 * The chart's buckets and the busiest ten, from what the database holds plus what was counted
 * and not yet written; a device that cannot be named (forgotten meanwhile) is left out and the
 * next one takes its place.
 */

const NOW = Date.UTC(2026, 10, 28, 15, 30);

function storeWith(perDevice: DeviceSum[], buckets: BucketSum[]): SqlProxyStore {
  const traffic = {
    buckets: (_g: Grain, from: number, to: number) =>
      buckets.filter((b) => b.bucket >= from && b.bucket <= to),
    perDevice: () => perDevice,
  };
  return { traffic } as unknown as SqlProxyStore;
}

describe("trafficView", () => {
  it("names the ten busiest by total, skipping one that cannot be named", () => {
    // Device k moved k MB down; device 0 moved nothing; device 11 is gone.
    const perDevice = Array.from({ length: 13 }, (_, k) => ({
      key: k,
      upload: 0,
      download: k * 1_000_000,
    }));
    const named: number[] = [];
    const view = trafficView({
      store: storeWith(perDevice, []),
      range: "30d",
      now: NOW,
      unwritten: new Map(),
      nameOf: (key) => {
        named.push(key);
        return key === 11 ? null : { id: `d${key}`, name: `device ${key}` };
      },
    });
    expect(view.devices?.map((d) => d.id)).toEqual([
      "d12",
      "d10",
      "d9",
      "d8",
      "d7",
      "d6",
      "d5",
      "d4",
      "d3",
      "d2",
    ]);
    // Only as many names as needed were looked up.
    expect(named).toHaveLength(11);
    expect(view.points).toHaveLength(30);
    expect(view.bucketSeconds).toBe(86_400);
  });

  it("adds what was counted and not yet written to its bucket and device", () => {
    const hour = hourOf(NOW);
    const row: TrafficAdd = { key: 1, hour, day: localDayOf(NOW), upload: 5, download: 50 };
    const view = trafficView({
      store: storeWith(
        [{ key: 1, upload: 1, download: 10 }],
        [{ bucket: hour, upload: 1, download: 10 }],
      ),
      range: "24h",
      now: NOW,
      unwritten: new Map([[1, { hours: new Map([[hour, row]]) }]]),
      nameOf: () => ({ id: "d1", name: "tablet" }),
    });
    expect(view.points).toHaveLength(24);
    expect(view.points.at(-1)).toEqual({
      t: new Date(hour * 3_600_000).toISOString(),
      upload: 6,
      download: 60,
    });
    expect(view.points.slice(0, -1).every((p) => p.upload === 0 && p.download === 0)).toBe(true);
    expect(view.devices).toEqual([{ id: "d1", name: "tablet", upload: 6, download: 60 }]);
  });
});
