import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMON_ERRORS, type ErrorRegistry } from "../../server/http/error-codes.js";
import { PARCEL_ERRORS } from "../../server/parcel/error-codes.js";
import { PROXY_ERRORS } from "../../server/proxy/error-codes.js";

const ROOT = join(import.meta.dirname, "../..");
const REGISTRIES: Record<string, ErrorRegistry> = {
  common: COMMON_ERRORS,
  parcel: PARCEL_ERRORS,
  proxy: PROXY_ERRORS,
};
const REGISTRY_FILES = new Set([
  "server/http/error-codes.ts",
  "server/parcel/error-codes.ts",
  "server/proxy/error-codes.ts",
]);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

const FILES = sources(join(ROOT, "server"))
  .map((path) => ({ file: relative(ROOT, path), text: readFileSync(path, "utf8") }))
  .filter((f) => !REGISTRY_FILES.has(f.file));

/** Each `new HttpError(` / `new DomainError(` / `new SubscriptionError(` call, and its arguments. */
function constructions(): Array<{ where: string; args: string }> {
  const out: Array<{ where: string; args: string }> = [];
  for (const { file, text } of FILES) {
    for (const m of text.matchAll(/new (?:HttpError|DomainError|SubscriptionError)\(/g)) {
      const line = text.slice(0, m.index).split("\n").length;
      out.push({
        where: `${file}:${line}`,
        args: text.slice(m.index + m[0].length, m.index + 400),
      });
    }
  }
  return out;
}

const ALL = new Set(Object.values(REGISTRIES).flatMap((r) => Object.keys(r)));

describe("error code registries", () => {
  it("name every code area.reason in lower case, with plain param names", () => {
    for (const [name, registry] of Object.entries(REGISTRIES)) {
      for (const [code, params] of Object.entries(registry)) {
        expect(code, name).toMatch(/^[a-z]+\.[a-z][a-z_]*$/);
        for (const p of params) expect(`${code} ${p}`).toMatch(/ [a-z][a-z_]*\??$/);
      }
    }
  });

  it("give each code to one registry only", () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [name, registry] of Object.entries(REGISTRIES)) {
      for (const code of Object.keys(registry)) {
        if (seen.has(code)) twice.push(`${code} in ${seen.get(code)} and ${name}`);
        seen.set(code, name);
      }
    }
    expect(twice).toEqual([]);
  });

  it("list only codes the services send", () => {
    // A code appears as a string literal, or through a template such as `core.${how}_failed`.
    const text = FILES.map((f) => f.text).join("\n");
    const templates = [...text.matchAll(/`([a-z]+)\.\$\{\w+\}(_[a-z_]+)`/g)].map(
      (m) => new RegExp(`^${m[1]}\\.[a-z]+${m[2]}$`),
    );
    const unused = [...ALL].filter(
      (code) => !text.includes(`"${code}"`) && !templates.some((t) => t.test(code)),
    );
    expect(unused).toEqual([]);
  });
});

describe("every error the services make", () => {
  it("has a registered code as its first argument after the status", () => {
    const found = constructions();
    expect(found.length).toBeGreaterThan(100);
    const bad = found.filter(({ args }) => {
      // new HttpError(<status>, <code>, ...), new DomainError(<kind>, <code>, ...) and
      // new SubscriptionError(<code>, ...)
      const code = String.raw`("([^"]+)"|\`[^\`]+\`|[A-Za-z_.]+(?: as "[^"]+")?),`;
      const m =
        new RegExp(String.raw`^\s*(?:\d{3}|status|"[a-z_]+"|kind),\s*${code}`).exec(args) ??
        new RegExp(String.raw`^\s*${code}`).exec(args);
      if (!m) return true;
      if (m[2] !== undefined) return !ALL.has(m[2]);
      return false; // a typed variable or template: the compiler checks it against the registry
    });
    expect(bad.map((b) => `${b.where}: new ...(${b.args.split("\n")[0]}`)).toEqual([]);
  });
});
