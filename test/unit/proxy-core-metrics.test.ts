import { describe, expect, it } from "vitest";
import { metricsFrom, type CounterSample } from "../../server/proxy/system/metrics.js";
import { compareVersions } from "../../server/proxy/system/updates.js";
import { actualNodeOf, nodeIdFromCoreName } from "../../server/proxy/domain/core-names.js";
import type { CoreProxy } from "../../server/proxy/context.js";

const s = (upTotal: number, downTotal: number, at: number, connections = 1): CounterSample => ({
  upTotal,
  downTotal,
  connections,
  at,
});

describe("metricsFrom", () => {
  it("answers 0 rates on the first sample, with the totals", () => {
    expect(metricsFrom(null, s(100, 200, 1000, 3))).toEqual({
      up: 0,
      down: 0,
      upTotal: 100,
      downTotal: 200,
      connections: 3,
      coreOnline: true,
    });
  });

  it("divides the totals' difference by the elapsed seconds", () => {
    const m = metricsFrom(s(100, 200, 0), s(4100, 10_200, 2000));
    expect(m).toMatchObject({ up: 2000, down: 5000, upTotal: 4100, downTotal: 10_200 });
  });

  it("never goes negative when the totals drop (core restarted)", () => {
    expect(metricsFrom(s(5000, 5000, 0), s(10, 20, 2000))).toMatchObject({ up: 0, down: 0 });
  });

  it("answers zeros and coreOnline false when the query failed", () => {
    expect(metricsFrom(s(1, 1, 0), null)).toEqual({
      up: 0,
      down: 0,
      upTotal: 0,
      downTotal: 0,
      connections: 0,
      coreOnline: false,
    });
  });

  it("answers 0 when no time elapsed", () => {
    expect(metricsFrom(s(0, 0, 5), s(100, 100, 5))).toMatchObject({ up: 0, down: 0 });
  });
});

describe("compareVersions", () => {
  it("compares numerically and tolerates the v prefix", () => {
    expect(compareVersions("v1.19.2", "v1.19.10")).toBe("outdated");
    expect(compareVersions("v1.19.10", "v1.19.10")).toBe("latest");
    expect(compareVersions("1.20.0", "v1.19.10")).toBe("latest");
  });

  it("is null when a version cannot be read", () => {
    expect(compareVersions("", "v1.19.10")).toBeNull();
    expect(compareVersions("v1.19.2", "nightly")).toBeNull();
  });
});

describe("actualNodeOf", () => {
  const p = (name: string, now?: string): CoreProxy => ({ name, type: "x", history: [], now });
  const A = "a".repeat(24);

  it("follows PROXY to AUTO's choice and maps it to the node id", () => {
    const proxies: Record<string, CoreProxy> = {
      PROXY: p("PROXY", "AUTO"),
      AUTO: p("AUTO", `[${A}] HK/1`),
    };
    proxies[`[${A}] HK/1`] = p(`[${A}] HK/1`);
    expect(actualNodeOf(proxies)).toBe(`${A}/sub-${A}/HK/1`);
  });

  it("keeps REJECT and answers empty when PROXY is unknown", () => {
    expect(actualNodeOf({ PROXY: p("PROXY", "REJECT"), REJECT: p("REJECT") })).toBe("REJECT");
    expect(actualNodeOf({})).toBe("");
    expect(nodeIdFromCoreName("DIRECT")).toBe("DIRECT");
  });
});
