import { describe, expect, it } from "vitest";
import { allMet, tableRow, verdict } from "../../bench/bench-table.js";
import type { Measure } from "../../bench/load-protocol.js";
import {
  loadTargets,
  OPEN_RESOLVE,
  PASSWORD_RESOLVE,
  type HashTimes,
} from "../../bench/load-targets.js";

const measure = (name: string, p50: number, p99: number, count = 100): Measure =>
  ({ name, count, bytes: 0, p50, p99, errors: 0, reasons: {} }) as Measure;

const hashes: HashTimes = {
  account: { label: "scrypt N=16384 r=8 p=1", ms: 36 },
  pickup: { label: "scrypt N=2048 r=8 p=1", ms: 4.5 },
};

describe("bench:load targets", () => {
  it("meets the password resolve target below 1 s and misses it at 1 s", () => {
    const at = (p99: number) =>
      loadTargets({
        measures: [measure(PASSWORD_RESOLVE, 300, p99), measure(OPEN_RESOLVE, 40, 160)],
        errors: 0,
        hashes,
      });
    expect(verdict(at(999)[0])).toBe("yes");
    expect(allMet(at(999))).toBe(true);
    expect(verdict(at(1000)[0])).toBe("NO");
    expect(allMet(at(1000))).toBe(false);
    expect(tableRow(at(999)[0])).toMatchObject({
      Gatehouse: "999 ms",
      "reference in the same run": "without a password, p99: 160 ms",
      target: "< 1000 ms",
      met: "yes",
    });
  });

  it("misses when any request failed, and says the hash costs beside each other", () => {
    const rows = loadTargets({ measures: [measure(PASSWORD_RESOLVE, 1, 2)], errors: 1, hashes });
    expect(verdict(rows[2])).toBe("NO");
    expect(tableRow(rows[3])).toMatchObject({
      measure: "one pickup password hash (scrypt N=2048 r=8 p=1), median",
      Gatehouse: "4.5 ms",
      "reference in the same run": "account password (scrypt N=16384 r=8 p=1): 36.0 ms",
      met: "",
    });
  });

  it("holds nothing to the password target in a run without password clients", () => {
    const rows = loadTargets({ measures: [measure(OPEN_RESOLVE, 1, 2)], errors: 0, hashes });
    expect(verdict(rows[0])).toBe("");
    expect(allMet(rows)).toBe(true);
  });
});
