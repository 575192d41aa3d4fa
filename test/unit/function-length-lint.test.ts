import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";
import { longFunctionFiles } from "../../scripts/eslint-function-length.js";

// The function-length rule, through the project's own eslint.config.js: it fires on an
// 81-line function in product code, lets 80 through, does not count blank lines or comments,
// and leaves tools (benchmarks, scripts, tests) alone. The list of files still being split
// only shrinks: a listed file that no longer needs it is a failure, so it is taken off.

const ROOT = resolve(import.meta.dirname, "../..");
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** A function whose body is `n` statements, with a blank line and a comment between each. */
function fn(n: number): string {
  const body = Array.from({ length: n }, (_, i) => `  x += ${i};\n\n  // step ${i}`).join("\n");
  return `export function long(): number {\n  let x = 0;\n${body}\n  return x;\n}\n`;
}

async function lengthErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, filePath) });
  return result.messages.filter((m) => m.ruleId === "max-lines-per-function").map((m) => m.message);
}

describe("function length lint", () => {
  it("refuses a product function of 81 lines and takes one of 80, blank lines and comments aside", async () => {
    // fn(n) counts n + 4 lines of code: the signature, `let`, `return` and the closing brace.
    for (const place of ["server/x/new-module.ts", "renderer/x/new-screen.tsx", "main/x.ts"]) {
      expect(await lengthErrors(place, fn(77)), place).toEqual([
        expect.stringContaining("too many lines (81)"),
      ]);
      expect(await lengthErrors(place, fn(76)), place).toEqual([]);
    }
  });

  it("does not hold benchmarks, scripts or tests to it", async () => {
    for (const place of ["bench/x.ts", "scripts/x.ts", "test/unit/x.test.ts"])
      expect(await lengthErrors(place, fn(200)), place).toEqual([]);
  });

  it("lists only files that exist and still hold a function over the limit", async () => {
    const strict = new ESLint({
      cwd: ROOT,
      overrideConfig: {
        files: ["**/*.{ts,tsx}"],
        rules: {
          "max-lines-per-function": [
            "error",
            { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true },
          ],
        },
      },
      ignore: false,
    });
    const stale: string[] = [];
    for (const file of longFunctionFiles) {
      if (!existsSync(join(ROOT, file))) {
        stale.push(`${file}: no such file`);
        continue;
      }
      const [result] = await strict.lintFiles([join(ROOT, file)]);
      if (!result.messages.some((m) => m.ruleId === "max-lines-per-function"))
        stale.push(`${file}: no function over 80 lines any more`);
    }
    expect(stale).toEqual([]);
  });
});
