import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The documentation must stand on its own and stay true: every file it names exists, no
// link leaves the repository, and nothing cites a document a clone of the repository lacks.

const ROOT = resolve(import.meta.dirname, "../..");
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Top-level names a backquoted path may start with: the repository's own folders and files. */
const TOP = new Set(readdirSync(ROOT).filter((n) => n !== "node_modules" && n !== ".git"));

/**
 * Named in the docs but made by a build or a download, so absent from a fresh clone:
 * `npm run build` writes `dist/` and `renderer/dist/`, scripts/fetch-core.ts puts the core
 * executable beside its manifest.
 */
const GENERATED = ["dist/", "renderer/dist/", "renderer/dist-desktop", "resources/core/mihomo"];

function read(file: string): string {
  return readFileSync(join(ROOT, file), "utf8");
}

/** Backquoted tokens that are repository paths (`server/http/errors.ts`, `test/unit/`). */
function repoPaths(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\s]+)`/g)) {
    const token = m[1];
    if (!token.includes("/") || /[<>:$?=#~]/.test(token) || token.startsWith("/")) continue;
    if (!TOP.has(token.split("/")[0])) continue;
    out.add(token);
  }
  return [...out];
}

/** Whether `pattern` (a path, maybe with `*` in its last part) names something in the tree. */
function exists(pattern: string): boolean {
  if (!pattern.includes("*")) return existsSync(join(ROOT, pattern));
  const dir = join(ROOT, dirname(pattern));
  const last = pattern.slice(pattern.lastIndexOf("/") + 1);
  const re = new RegExp(`^${last.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
  return existsSync(dir) && readdirSync(dir).some((f) => re.test(f));
}

/** Every file under `dir` (relative to the root), skipping build output and dependencies. */
function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${name}`;
    if (["node_modules", "dist", "test-results", "artifacts"].includes(name)) continue;
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...walk(rel));
    else out.push(rel);
  }
  return out;
}

describe("documentation", () => {
  it("has the architecture and API guides next to the README", () => {
    expect(DOCS).toEqual(expect.arrayContaining(["docs/architecture.md", "docs/api.md"]));
  });

  it.each(DOCS)("%s names only files and folders that exist", (file) => {
    const paths = repoPaths(read(file));
    const missing = paths.filter(
      (p) => !exists(p) && !GENERATED.some((g) => p === g || p.startsWith(g)),
    );
    expect(missing).toEqual([]);
  });

  it("finds the paths a doc names (the check above is not vacuous)", () => {
    const paths = repoPaths(read("docs/architecture.md"));
    expect(paths).toContain("server/parcel/routes/pickup.ts");
    expect(paths.length).toBeGreaterThan(50);
    expect(exists("server/parcel/routes/no-such-router.ts")).toBe(false);
  });

  it.each(DOCS)("%s links only to files inside the repository", (file) => {
    const text = read(file);
    expect(text).not.toMatch(/\.\.\//);
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const path = resolve(dirname(join(ROOT, file)), target.split("#")[0]);
      expect(relative(ROOT, path).startsWith(".."), `${file}: ${target}`).toBe(false);
      expect(existsSync(path), `${file}: ${target}`).toBe(true);
    }
  });

  it("names every router module of both services in docs/architecture.md", () => {
    const doc = read("docs/architecture.md");
    const routers = ["server/parcel/routes", "server/proxy/routes"]
      .flatMap((d) => readdirSync(join(ROOT, d)).map((f) => `${d}/${f}`))
      .filter((f) => /\b(r|router)\.(endpoint|raw)\(/.test(read(f)));
    expect(routers.length).toBeGreaterThan(20);
    expect(routers.filter((f) => !doc.includes(`\`${f}\``))).toEqual([]);
  });

  it("cites no document a clone lacks, in the docs or in the code", () => {
    const files = [
      ...DOCS,
      ...["server", "renderer", "main", "preload", "test", "scripts", "bench", ".github"]
        .filter((d) => existsSync(join(ROOT, d)))
        .flatMap(walk),
    ].filter((f) => /\.(ts|tsx|mjs|cjs|js|md|ya?ml)$/.test(f) && !f.endsWith("docs-links.test.ts"));
    // The reference documents beside the project during its development, by name or by section
    // number. (`../shared/` itself is fine in code: renderer/shared is a folder of the pages.)
    const cites =
      /CONTRACT|HOUSE-STYLE|PROXY-CORE\.md|ENVIRONMENT\.md|shared\/spec|§|\bsection \d+(\.\d+)*\b/;
    const found = files.filter((f) => cites.test(read(f)));
    expect(found).toEqual([]);
  });
});
