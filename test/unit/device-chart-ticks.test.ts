import { describe, expect, it } from "vitest";
import {
  hourFormat,
  placeTicks,
  TICK_GAP,
  tickEvery,
} from "../../renderer/proxy/devices/chart-ticks.js";

/** The labels' boxes, left to right, as the chart draws them (centred on `x`). */
function boxes(ticks: { index: number; x: number }[], widths: number[]) {
  return ticks.map((t) => ({
    left: t.x - (widths[t.index] ?? 0) / 2,
    right: t.x + (widths[t.index] ?? 0) / 2,
  }));
}

function expectApart(ticks: { index: number; x: number }[], widths: number[], width: number) {
  const b = boxes(ticks, widths);
  for (const [i, box] of b.entries()) {
    expect(box.left).toBeGreaterThanOrEqual(0);
    expect(box.right).toBeLessThanOrEqual(width);
    const next = b[i + 1];
    if (next) expect(box.right + TICK_GAP).toBeLessThanOrEqual(next.left);
  }
}

describe("the history chart's time labels", () => {
  it("keep the old cadence where there is room: every 4 hours of a day, every 5 of 30 days", () => {
    expect(tickEvery({ count: 24, slot: 40, labelWidth: 30, hourly: true })).toBe(4);
    expect(tickEvery({ count: 30, slot: 40, labelWidth: 30, hourly: false })).toBe(5);
    expect(tickEvery({ count: 7, slot: 120, labelWidth: 30, hourly: false })).toBe(1);
  });

  it("thin out on a narrow chart: 24 hours in 250 px with 50 px labels", () => {
    // 360 px phone: about 250 px of plot, 10.4 px an hour; "09:00 AM" is ~48 px.
    const every = tickEvery({ count: 24, slot: 250 / 24, labelWidth: 48, hourly: true });
    expect(every).toBe(6);
    expect(24 % every).toBe(0);
  });

  it("never touch nor leave the picture, whatever the width and label length", () => {
    for (const [count, hourly] of [
      [24, true],
      [7, false],
      [30, false],
    ] as const) {
      for (const width of [280, 300, 330, 360, 390, 600, 900, 1400]) {
        for (const labelWidth of [20, 30, 48, 70]) {
          const plot = width - 64 - 18;
          const slot = plot / count;
          const widths = Array.from({ length: count }, (_, i) => labelWidth - (i % 3));
          const ticks = placeTicks({ widths, slot, left: 64, width, hourly });
          expect(ticks.length).toBeGreaterThanOrEqual(1);
          // The newest bucket always has its label.
          expect(ticks.at(-1)?.index).toBe(count - 1);
          expectApart(ticks, widths, width);
        }
      }
    }
  });

  it("pull the labels at the edges inside and drop one the pull would run into", () => {
    const widths = [60, 60, 60];
    const ticks = placeTicks({ widths, slot: 40, left: 0, width: 120, hourly: false });
    expectApart(ticks, widths, 120);
    // Every other bucket would do (80 px apart), but pulled in, the first runs into the last.
    expect(ticks.map((t) => t.index)).toEqual([2]);
  });

  it("say hours short, the reader's way", () => {
    const nine = new Date(2026, 0, 1, 9);
    expect(nine.toLocaleTimeString("en", hourFormat("en"))).toMatch(/^9\sAM$/);
    expect(nine.toLocaleTimeString("zh-CN", hourFormat("zh-CN"))).toBe("9:00");
  });
});
