import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cycles, importGraph, runtimeImports } from "../../scripts/import-cycles.js";

// Two modules that import each other see each other's exports as undefined in whichever one
// loads first: the tree keeps no runtime import cycle. Type-only imports vanish when compiled;
// a cycle through them still ties modules together, so there is none of those either.

const ROOT = resolve(import.meta.dirname, "../..");
const DIRS = ["server", "main", "renderer", "preload"];

describe("import cycles", () => {
  it("finds no runtime cycle in server/, main/, renderer/ and preload/", () => {
    const graph = importGraph(ROOT, DIRS);
    // The scan sees the tree: hundreds of modules, and edges between them.
    expect(graph.size).toBeGreaterThan(300);
    expect([...graph.values()].flat().length).toBeGreaterThan(1000);
    expect(cycles(graph)).toEqual([]);
  });

  it("finds no cycle through type imports either", () => {
    expect(cycles(importGraph(ROOT, DIRS, true))).toEqual([]);
  });

  const scratch = mkdtempSync(join(tmpdir(), "gatehouse-cycles-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const write = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, name)), { recursive: true });
      writeFileSync(join(scratch, name), text);
    }
  };

  it("finds a cycle through three modules, and one through a re-export (the check fires)", () => {
    write({
      "src/a.ts": 'import { b } from "./b.js";\nexport const a = b;\n',
      "src/b.ts": 'import { c } from "./sub/c.js";\nexport const b = c;\n',
      "src/sub/c.ts": 'import { a } from "../a.js";\nexport const c = a;\n',
      "src/d.tsx": 'export * from "./e.js";\n',
      "src/e.ts": 'import "./d.js";\nexport const e = 1;\n',
      "src/f.ts": 'import { a } from "./a.js";\nexport const f = a;\n',
    });
    expect(cycles(importGraph(scratch, ["src"]))).toEqual([
      ["src/a.ts", "src/b.ts", "src/sub/c.ts"],
      ["src/d.tsx", "src/e.ts"],
    ]);
  });

  it("does not count imports of types only", () => {
    write({
      "types/a.ts":
        'import type { B } from "./b.js";\nexport type A = B | 1;\nexport const a = 1;\n',
      "types/b.ts": 'import { a } from "./a.js";\nexport type B = typeof a;\n',
      "types/c.ts": 'import { type D } from "./d.js";\nexport const c = 1 as D;\n',
      "types/d.ts": 'import { c } from "./c.js";\nexport type D = typeof c;\n',
    });
    expect(cycles(importGraph(scratch, ["types"]))).toEqual([]);
    expect(
      runtimeImports(
        "x.ts",
        [
          'import type { A } from "./a.js";',
          'import { type B } from "./b.js";',
          'export type { C } from "./c.js";',
          'import { type D, e } from "./d.js";',
          'import * as f from "./f.js";',
          'import g from "./g.js";',
          'import "./h.js";',
          'export { i } from "./i.js";',
          'import { z } from "zod";',
        ].join("\n"),
      ),
    ).toEqual(["./d.js", "./f.js", "./g.js", "./h.js", "./i.js"]);
  });
});
