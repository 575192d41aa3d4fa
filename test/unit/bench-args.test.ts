import { describe, expect, it } from "vitest";
import {
  formatSize,
  parseSize,
  parseTransferArgs,
  refuseForSpace,
  spaceNeeded,
} from "../../bench/bench-args.js";

const MiB = 1048576;
const GiB = 1073741824;

describe("bench size parsing", () => {
  it("reads binary units as powers of 1024 and decimal ones as powers of 1000", () => {
    expect(parseSize("256MiB")).toBe(256 * MiB);
    expect(parseSize("1GiB")).toBe(GiB);
    expect(parseSize("8GiB")).toBe(8 * GiB);
    expect(parseSize("8gib")).toBe(8 * GiB);
    expect(parseSize("1.5 GiB")).toBe(1.5 * GiB);
    expect(parseSize("64M")).toBe(64 * MiB);
    expect(parseSize("500MB")).toBe(500_000_000);
    expect(parseSize("2kB")).toBe(2000);
    expect(parseSize("4096")).toBe(4096);
  });

  it("refuses text that is not a whole positive byte count, naming it", () => {
    for (const bad of ["", "GiB", "8 GiBs", "-1GiB", "0", "1.5", "0.1KiB", "1e9", "8TB"])
      expect(() => parseSize(bad), bad).toThrow(/size|bytes/);
    expect(() => parseSize("8 parsecs")).toThrow('"8 parsecs"');
  });

  it("writes sizes back in the unit they were given in", () => {
    for (const text of ["256MiB", "1GiB", "8GiB", "1.5GiB", "4KiB"])
      expect(formatSize(parseSize(text))).toBe(text);
    expect(formatSize(100)).toBe("100B");
  });
});

describe("bench transfer options", () => {
  it("defaults to 1 GiB, medians of 3, loopback, with the admin lists", () => {
    expect(parseTransferArgs([])).toEqual({ size: GiB, runs: 3, gateway: false, lists: true });
  });

  it("takes --size, --runs, --gateway and --skip-lists", () => {
    expect(
      parseTransferArgs(["--size", "8GiB", "--runs", "1", "--gateway", "--skip-lists"]),
    ).toEqual({ size: 8 * GiB, runs: 1, gateway: true, lists: false });
    expect(parseTransferArgs([], { BENCH_SKIP_LISTS: "1" })).toMatchObject({ lists: false });
    expect(parseTransferArgs(["--help"])).toBe("help");
  });

  it("refuses a bad run count, a bad size and unknown options", () => {
    expect(() => parseTransferArgs(["--runs", "0"])).toThrow(/--runs/);
    expect(() => parseTransferArgs(["--runs", "2.5"])).toThrow(/--runs/);
    expect(() => parseTransferArgs(["--size", "lots"])).toThrow(/not a size/);
    expect(() => parseTransferArgs(["--sizes", "1GiB"])).toThrow();
  });
});

describe("bench disk space check", () => {
  it("asks for five copies of the file and a margin", () => {
    expect(spaceNeeded(8 * GiB)).toBe(40 * GiB + 512 * MiB);
  });

  it("allows a run that fits and refuses one that does not, in a sentence with the figures", () => {
    expect(refuseForSpace(GiB, 6 * GiB, "/tmp")).toBeNull();
    expect(refuseForSpace(GiB, spaceNeeded(GiB), "/tmp")).toBeNull();
    const no = refuseForSpace(8 * GiB, 20 * GiB, "/tmp");
    expect(no).toContain("Not enough free disk space in /tmp for a 8GiB run");
    expect(no).toContain("40.5GiB");
    expect(no).toContain("20GiB is free");
  });
});
