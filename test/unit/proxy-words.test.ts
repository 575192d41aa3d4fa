import { describe, expect, it } from "vitest";
import { AREA_WORDS, en, zh } from "../../renderer/proxy/words.js";

// Each area of the proxy console keeps its words beside its screens; words.ts merges them.
// A key defined in two areas would be silently overwritten by the later one: refuse it.

describe("the proxy console's words, kept by area", () => {
  it("has every key in exactly one area", () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [area, tables] of Object.entries(AREA_WORDS)) {
      for (const key of Object.keys(tables.en)) {
        const other = seen.get(key);
        if (other) twice.push(`${key} (${other} and ${area})`);
        seen.set(key, area);
      }
    }
    expect(twice).toEqual([]);
    expect(seen.size).toBe(Object.keys(en).length);
  });

  it("gives each area's Chinese table exactly its English keys", () => {
    for (const [area, tables] of Object.entries(AREA_WORDS)) {
      expect(Object.keys(tables.zh).sort(), area).toEqual(Object.keys(tables.en).sort());
    }
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
  });
});
