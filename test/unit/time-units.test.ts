import { describe, expect, it } from "vitest";
import {
  DAY_MS,
  DAY_S,
  HOUR_MS,
  HOUR_S,
  MINUTE_MS,
  MINUTE_S,
  SECOND_MS,
  WEEK_S,
} from "../../server/contract/time-units.js";

describe("named durations", () => {
  it("agree with the calendar in seconds and in milliseconds", () => {
    expect([MINUTE_S, HOUR_S, DAY_S, WEEK_S]).toEqual([60, 3600, 86_400, 604_800]);
    expect([SECOND_MS, MINUTE_MS, HOUR_MS, DAY_MS]).toEqual([1000, 60_000, 3_600_000, 86_400_000]);
    // Date arithmetic agrees: one day later is DAY_MS later, whatever the zone.
    const start = Date.UTC(2026, 0, 31, 12);
    expect(Date.UTC(2026, 1, 1, 12) - start).toBe(DAY_MS);
  });
});
