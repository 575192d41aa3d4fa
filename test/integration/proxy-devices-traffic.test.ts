import { afterEach, describe, expect, it } from "vitest";
import type { TrafficView } from "../../server/contract/proxy-devices.js";
import { localDayOf, localDayStart } from "../../server/proxy/domain/devices-time.js";
import { LAPTOP, TABLET, startLan, type LanHarness } from "./proxy-devices-support.js";

const lans: LanHarness[] = [];
afterEach(async () => {
  for (const l of lans.splice(0)) await l.stop();
});

async function started(...args: Parameters<typeof startLan>): Promise<LanHarness> {
  const l = await startLan(...args);
  lans.push(l);
  return l;
}

async function traffic(l: LanHarness, query: string): Promise<TrafficView> {
  const r = await l.h.request("GET", `/traffic${query}`);
  expect(r.status, r.text).toBe(200);
  return r.json as TrafficView;
}

const HOUR = 3_600_000;
const NOON = Date.UTC(2026, 0, 1, 12);

describe("GET /traffic", () => {
  it("answers every bucket of the range, oldest first, with the top devices by total", async () => {
    const lan = await started();
    lan.setArp([TABLET]);
    const a = await lan.connect(TABLET.ip);
    const b = await lan.connect(LAPTOP.ip);
    await lan.poll();
    await lan.move(a, 100, 1000);
    await lan.move(b, 5, 50);
    await lan.poll();
    lan.h.service.accounting.flush();
    lan.h.clock.advance(3 * HOUR);
    await lan.move(a, 1, 10);
    await lan.poll();

    const day = await traffic(lan, "?range=24h");
    expect(day.range).toBe("24h");
    expect(day.bucketSeconds).toBe(3600);
    expect(day.points).toHaveLength(24);
    expect(day.points[23].t).toBe(new Date(NOON + 3 * HOUR).toISOString());
    expect(day.points[0].t).toBe(new Date(NOON + 3 * HOUR - 23 * HOUR).toISOString());
    // Written (noon) and not yet written (15:00) counts, each in its own hour; zeros elsewhere.
    expect(day.points[20]).toEqual({
      t: new Date(NOON).toISOString(),
      upload: 105,
      download: 1050,
    });
    expect(day.points[23]).toMatchObject({ upload: 1, download: 10 });
    expect(day.points.filter((p) => p.upload + p.download > 0)).toHaveLength(2);
    expect(day.devices).toEqual([
      { id: TABLET.mac, name: TABLET.ip, upload: 101, download: 1010 },
      { id: LAPTOP.ip, name: LAPTOP.ip, upload: 5, download: 50 },
    ]);

    for (const [range, count] of [
      ["7d", 7],
      ["30d", 30],
    ] as const) {
      const view = await traffic(lan, `?range=${range}`);
      expect(view.bucketSeconds).toBe(86400);
      expect(view.points).toHaveLength(count);
      const today = localDayOf(lan.h.clock.now());
      expect(view.points.map((p) => p.t)).toEqual(
        Array.from({ length: count }, (_, i) =>
          new Date(localDayStart(today - count + 1 + i)).toISOString(),
        ),
      );
      const sum = view.points.reduce((s, p) => s + p.download, 0);
      expect(sum).toBe(1060);
    }

    const one = await traffic(lan, `?range=24h&device=${TABLET.mac}`);
    expect(one.devices).toBeUndefined();
    expect(one.points[20]).toMatchObject({ upload: 100, download: 1000 });
    expect((await traffic(lan, "")).range).toBe("24h");
  });

  it("refuses an unknown range or device with 400", async () => {
    const lan = await started();
    for (const q of ["?range=1y", "?range=24h&range=7d", "?device=aa:bb:cc:dd:ee:ff", "?device="]) {
      const r = await lan.h.request("GET", `/traffic${q}`);
      expect(r.status, q).toBe(400);
      expect(r.json.error).toEqual(expect.any(String));
    }
  });

  it("keeps what was counted across a restart of the service", async () => {
    const first = await started();
    first.setArp([TABLET]);
    const c = await first.connect(TABLET.ip);
    await first.poll();
    await first.move(c, 7, 70);
    await first.poll();
    const before = await traffic(first, "?range=24h");
    // Nothing written yet: the stop writes it.
    expect(first.h.service.accounting.unwritten().size).toBe(1);
    lans.splice(lans.indexOf(first), 1);
    await first.stop(false);

    const again = await started({ dataDir: first.h.dataDir, clock: first.h.clock }, first.dir);
    expect(await traffic(again, "?range=24h")).toEqual(before);
    const [tablet] = (await again.h.request("GET", "/devices")).json as Array<{ id: string }>;
    expect(tablet).toMatchObject({ id: TABLET.mac, today: { upload: 7, download: 70 } });
    // The count goes on: the new service's first reading only learns the connections.
    const d = await again.connect(TABLET.ip, 1000, 1000);
    await again.poll();
    await again.move(d, 3, 30);
    await again.poll();
    expect((await traffic(again, "?range=24h")).points[23]).toMatchObject({
      upload: 10,
      download: 100,
    });
  });

  it("counts connections that come and go between readings, and measures what it cannot see", async () => {
    const lan = await started();
    const { accounting } = lan.h.service;
    const long = await lan.connect(TABLET.ip);
    await lan.poll();
    // Opened after a reading and still open at the next: all its bytes count.
    const fresh = await lan.connect(TABLET.ip);
    await lan.move(fresh, 40, 400);
    // Opened and closed between two readings: the core's totals grow, no reading sees it.
    const flash = await lan.connect(TABLET.ip);
    await lan.move(flash, 9, 90);
    await lan.close(flash);
    // Seen, then it moves some more and closes before the next reading: those bytes are lost.
    await lan.move(long, 2, 20);
    await lan.poll();
    await lan.move(long, 5, 50);
    await lan.close(long);
    await lan.move(fresh, 1, 10);
    await lan.poll();
    const [point] = (await traffic(lan, "?range=24h")).points.slice(-1);
    expect(point).toMatchObject({ upload: 43, download: 430 });
    expect(accounting.stats.counted).toEqual({ upload: 43, download: 430 });
    expect(accounting.stats.missed).toEqual({ upload: 14, download: 140 });
  });

  it("counts while the core runs with no console open, and writes at most once per flush interval", async () => {
    const lan = await started({ deviceTiming: { pollMs: 50, flushMs: 400 } });
    let writes = 0;
    const { traffic: repo } = lan.h.service.ctx.store as unknown as {
      traffic: { add: (rows: unknown[]) => void };
    };
    const add = repo.add.bind(repo);
    repo.add = (rows) => {
      writes++;
      add(rows);
    };
    const c = await lan.connect(TABLET.ip);
    const t0 = Date.now();
    const { accounting } = lan.h.service;
    const readings = accounting.stats.readings;
    while (accounting.stats.readings < readings + 20) {
      await lan.move(c, 1, 1);
      await new Promise((r) => setTimeout(r, 20));
    }
    const elapsed = Date.now() - t0;
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThanOrEqual(Math.floor(elapsed / 400) + 1);
  });

  it("keeps 90 days: older hours and days are dropped", async () => {
    const lan = await started();
    const c = await lan.connect(TABLET.ip);
    await lan.poll();
    await lan.move(c, 1, 1);
    await lan.poll();
    lan.h.service.accounting.flush();
    lan.h.clock.advance(89 * 24 * HOUR);
    lan.h.service.accounting.flush();
    const db = lan.h.service.ctx.store as unknown as {
      traffic: { buckets: (g: string, a: number, b: number) => unknown[] };
    };
    expect(db.traffic.buckets("hour", 0, 1e9)).toHaveLength(1);
    lan.h.clock.advance(2 * 24 * HOUR);
    lan.h.service.accounting.flush();
    expect(db.traffic.buckets("hour", 0, 1e9)).toHaveLength(0);
    expect(db.traffic.buckets("day", 0, 1e9)).toHaveLength(0);
  });
});
