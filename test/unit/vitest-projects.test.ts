import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import integration from "../../vitest.integration.config.js";
import unit from "../../vitest.unit.config.js";

interface Project {
  test: { name: string; include: string[]; exclude?: string[]; isolate: boolean };
}

function testFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => join(dir, file).split("\\").join("/"))
    .sort();
}

/** Which project runs each file, and whether that project isolates its files. */
function placement(config: typeof unit): Map<string, boolean[]> {
  const placed = new Map<string, boolean[]>();
  for (const { test } of (config.test?.projects ?? []) as Project[]) {
    for (const file of test.include) {
      if (test.exclude?.includes(file)) continue;
      placed.set(file, [...(placed.get(file) ?? []), test.isolate]);
    }
  }
  return placed;
}

describe("the unit and integration runs' projects", () => {
  for (const [dir, config] of [
    ["test/unit", unit],
    ["test/integration", integration],
  ] as const) {
    it(`run every file of ${dir} once, isolated where it replaces a module with vi.mock`, () => {
      const placed = placement(config);
      const files = testFiles(dir);
      expect([...placed.keys()].sort()).toEqual(files);
      for (const file of files) {
        const mocks = /\bvi\.mock\(/.test(readFileSync(file, "utf8"));
        const runs = placed.get(file) ?? [];
        expect(runs, file).toHaveLength(1);
        if (mocks) expect(runs[0], `${file} uses vi.mock`).toBe(true);
      }
    });
  }

  it("share the product's modules between the other files of a worker", () => {
    const shared = [...placement(integration)].filter(([, [isolated]]) => !isolated);
    expect(shared.length).toBeGreaterThan(100);
    expect(placement(integration).get("test/integration/parcel-codes.test.ts")).toEqual([true]);
    expect(placement(unit).get("test/unit/subscriptions-limits.test.ts")).toEqual([true]);
  });
});
