import { readdirSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// Both services' contracts name a zod schema value `XxxSchema` and its parsed type `Xxx`
// (`type Settings = z.output<typeof SettingsSchema>`), so a name says at once whether it can
// parse. Every module under server/contract/ is loaded (a new one is checked without being
// listed here) and every exported zod schema must follow the rule.

const contractDir = new URL("../../server/contract/", import.meta.url);

const modules = readdirSync(contractDir)
  .filter((name) => name.endsWith(".ts"))
  .sort();

/** A zod schema, classic or mini: both carry their definition under `_zod`. */
function isZodSchema(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_zod" in value;
}

async function schemaExports(): Promise<Array<{ module: string; name: string }>> {
  const found: Array<{ module: string; name: string }> = [];
  for (const module of modules) {
    const exported = (await import(
      pathToFileURL(new URL(module, contractDir).pathname).href
    )) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exported)) {
      if (isZodSchema(value)) found.push({ module, name });
    }
  }
  return found;
}

describe("contract naming", () => {
  it("loads both services' contract modules", () => {
    expect(modules).toEqual(expect.arrayContaining(["parcel.ts", "proxy.ts", "proxy-fields.ts"]));
  });

  it("names every exported zod schema of server/contract XxxSchema", async () => {
    const found = await schemaExports();
    // Not vacuous: schemas of both services are seen (the parcel and the proxy contract).
    const names = new Set(found.map((f) => f.name));
    expect(names).toContain("SettingsSchema");
    expect(names).toContain("PolicyPatchSchema");
    expect(found.length).toBeGreaterThan(100);
    const wrong = found
      .filter((f) => !f.name.endsWith("Schema"))
      .map((f) => `${f.module}: ${f.name}`);
    expect(wrong).toEqual([]);
  });
});
