import { describe, expect, it } from "vitest";
import {
  allMet,
  mbps,
  median,
  ratio,
  tableRow,
  verdict,
  type Measure,
} from "../../bench/bench-table.js";

const row = (over: Partial<Measure>): Measure => ({
  measure: "upload 1GiB",
  value: 250,
  reference: 250,
  referenceName: "Node, same work",
  unit: "MB/s",
  target: { kind: "ratio-at-least", min: 1 },
  ...over,
});

describe("bench table verdicts", () => {
  it("meets a ratio target at exactly the ratio and misses it just below", () => {
    expect(verdict(row({ value: 250, reference: 250 }))).toBe("yes");
    expect(verdict(row({ value: 249, reference: 250 }))).toBe("NO");
    const download = { target: { kind: "ratio-at-least", min: 0.9 } } as const;
    expect(verdict(row({ ...download, value: 1332, reference: 1479 }))).toBe("yes");
    expect(verdict(row({ ...download, value: 1260, reference: 1479 }))).toBe("NO");
  });

  it("never meets a target when a figure or the reference is missing", () => {
    expect(verdict(row({ value: null }))).toBe("NO");
    expect(verdict(row({ reference: null }))).toBe("NO");
    expect(verdict(row({ reference: 0 }))).toBe("NO");
    expect(ratio(row({ reference: 0 }))).toBeNull();
  });

  it("judges link speeds, memory ceilings and checks on Gatehouse's own figure", () => {
    const link = { target: { kind: "at-least", min: 118, unit: "MB/s" } } as const;
    expect(verdict(row({ ...link, value: 118, reference: 118 }))).toBe("yes");
    expect(verdict(row({ ...link, value: 117.9, reference: 118 }))).toBe("NO");
    const memory = { unit: "MiB", target: { kind: "below", max: 64, unit: "MiB" } } as const;
    expect(verdict(row({ ...memory, value: 63.9, reference: 2 }))).toBe("yes");
    expect(verdict(row({ ...memory, value: 64, reference: 2 }))).toBe("NO");
    const check = { unit: "", reference: null, target: { kind: "true" } } as const;
    expect(verdict(row({ ...check, value: 1 }))).toBe("yes");
    expect(verdict(row({ ...check, value: 0 }))).toBe("NO");
  });

  it("leaves information rows without a verdict and counts only targets in allMet", () => {
    const info = row({ value: 1, reference: 1000, target: { kind: "info" } });
    expect(verdict(info)).toBe("");
    expect(allMet([info, row({})])).toBe(true);
    expect(allMet([info, row({ value: 10 })])).toBe(false);
  });
});

describe("bench table rows", () => {
  it("prints the figures, the reference with its name, the ratio, the target and the verdict", () => {
    expect(tableRow(row({ value: 221, reference: 270 }))).toEqual({
      measure: "upload 1GiB",
      Gatehouse: "221 MB/s",
      "reference in the same run": "Node, same work: 270 MB/s",
      ratio: "0.82x",
      target: ">= 1.00x",
      met: "NO",
    });
  });

  it("shows no ratio for a memory ceiling and n/a for a figure that failed", () => {
    const memory = tableRow(
      row({
        unit: "MiB",
        value: 39.4,
        reference: null,
        target: { kind: "below", max: 64, unit: "MiB" },
      }),
    );
    expect(memory).toMatchObject({
      Gatehouse: "39.4 MiB",
      ratio: "",
      target: "< 64 MiB",
      met: "yes",
    });
    expect(memory["reference in the same run"]).toBe("Node, same work: n/a");
  });
});

describe("bench figures", () => {
  it("takes the middle of an odd count and the mean of the middle two of an even one", () => {
    expect(median([300, 100, 200])).toBe(200);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it("converts bytes and milliseconds into MB/s of 10^6 bytes", () => {
    expect(mbps(1_000_000_000, 1000)).toBe(1000);
    expect(mbps(1073741824, 1000)).toBeCloseTo(1073.74, 2);
  });
});
