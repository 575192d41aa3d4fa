import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The proxy service's layers, checked on the source itself: routes/ holds routers and nothing
// else, each taking the one deps type; SQL is prepared in the repositories only; nothing is
// loaded by a dynamic import (a broken module must fail the start, not become a 404); the
// layers below the routers know nothing of Express. Each rule is also run on a small bad
// sample, so a rule that can no longer fire fails here too.

const ROOT = join(import.meta.dirname, "../..");
const PROXY = join(ROOT, "server/proxy");

function files(dir: string, exts = [".ts"]): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, exts);
    return exts.some((e) => name.endsWith(e)) ? [path] : [];
  });
}

const rel = (path: string) => relative(ROOT, path).split("\\").join("/");

const parsed = new Map<string, ts.SourceFile>();

function parse(name: string, text: string): ts.SourceFile {
  const key = `${name}\n${text}`;
  let source = parsed.get(key);
  if (!source) {
    source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    parsed.set(key, source);
  }
  return source;
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

function exported(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

/** Why a module of routes/ is not a router module (empty when it is one). */
function routerModuleProblems(name: string, text: string): string[] {
  const source = parse(name, text);
  const problems: string[] = [];
  let routers = 0;
  for (const node of source.statements) {
    if (!exported(node)) continue;
    if (ts.isClassDeclaration(node)) problems.push(`${name}: exports class ${node.name?.text}`);
    if (!ts.isFunctionDeclaration(node) || !node.name?.text.endsWith("Router")) continue;
    routers++;
    const params = node.parameters.map((p) => p.type?.getText(source) ?? "");
    const returns = node.type?.getText(source) ?? "";
    if (params.length !== 1 || params[0] !== "ProxyRouterDeps" || returns !== "Router")
      problems.push(`${name}: ${node.name.text}(${params.join(", ")}): ${returns}`);
  }
  if (routers === 0) problems.push(`${name}: exports no router`);
  return problems;
}

/** Whether a module declares only types (the deps type's own module). */
function typesOnly(name: string, text: string): boolean {
  return parse(name, text).statements.every(
    (s) =>
      ts.isImportDeclaration(s) ||
      ts.isInterfaceDeclaration(s) ||
      ts.isTypeAliasDeclaration(s) ||
      ts.isEmptyStatement(s),
  );
}

/** Lines that call `import(...)` as a function (type positions like `import("x").T` do not). */
function dynamicImports(name: string, text: string): number[] {
  const source = parse(name, text);
  const lines: number[] = [];
  walk(source, (n) => {
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword)
      lines.push(source.getLineAndCharacterOfPosition(n.getStart()).line + 1);
  });
  return lines;
}

/** Lines that build an HttpError (`new HttpError(` or `HttpError.carrying(`). */
function httpErrorsBuilt(name: string, text: string): number[] {
  const source = parse(name, text);
  const lines: number[] = [];
  walk(source, (n) => {
    const built =
      (ts.isNewExpression(n) &&
        ts.isIdentifier(n.expression) &&
        n.expression.text === "HttpError") ||
      (ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        ts.isIdentifier(n.expression.expression) &&
        n.expression.expression.text === "HttpError");
    if (built) lines.push(source.getLineAndCharacterOfPosition(n.getStart()).line + 1);
  });
  return lines;
}

/** Lines that call a method named `prepare` (on whatever object). */
function prepares(name: string, text: string): number[] {
  const source = parse(name, text);
  const lines: number[] = [];
  walk(source, (n) => {
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      n.expression.name.text === "prepare"
    )
      lines.push(source.getLineAndCharacterOfPosition(n.getStart()).line + 1);
  });
  return lines;
}

/** Module names a file imports or re-exports (type-only ones too). */
function importsOf(name: string, text: string): string[] {
  return parse(name, text).statements.flatMap((s) =>
    (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) &&
    s.moduleSpecifier &&
    ts.isStringLiteral(s.moduleSpecifier)
      ? [s.moduleSpecifier.text]
      : [],
  );
}

const isExpress = (spec: string) => spec === "express" || spec.startsWith("express/");

const ROUTES = files(join(PROXY, "routes"));
const DEPS_MODULE = "server/proxy/routes/router-deps.ts";
/** The repositories: the only modules that hold SQL. */
const REPOSITORIES = "server/proxy/store/";
/** The worker entries load the compiled module or, in development, the TypeScript one. */
const DYNAMIC_IMPORT_ALLOWED = new Set([
  "server/proxy/subscriptions/parse-worker.mjs",
  "server/proxy/core/core-reader-worker.mjs",
]);
const BELOW_ROUTES = ["domain", "store", "core", "subscriptions"];
/** Checks of request bodies: they answer 400 themselves, as the HTTP layer's parsing does. */
const PARSING = new Set<string>();

describe("the proxy's routes/ folder", () => {
  it("holds router modules, each router taking ProxyRouterDeps and answering a Router", () => {
    const problems = ROUTES.filter((f) => rel(f) !== DEPS_MODULE).flatMap((f) =>
      routerModuleProblems(rel(f), readFileSync(f, "utf8")),
    );
    expect(ROUTES.length).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });

  it("defines the deps type in a module of types only", () => {
    expect(typesOnly(DEPS_MODULE, readFileSync(join(ROOT, DEPS_MODULE), "utf8"))).toBe(true);
  });

  it("mounts every router in the API router (none is left out to answer 404)", () => {
    const api = readFileSync(join(PROXY, "routes/api.ts"), "utf8");
    const missing = ROUTES.flatMap((f) => {
      const names = [...readFileSync(f, "utf8").matchAll(/export function (\w+Router)\(/g)];
      return names.map((m) => m[1]).filter((n) => n !== "apiRouter" && !api.includes(`  ${n},`));
    });
    expect(missing).toEqual([]);
  });

  it("build no HttpError: a refusal is a domain error, its status decided by the service's table", () => {
    const found = ROUTES.flatMap((f) =>
      httpErrorsBuilt(rel(f), readFileSync(f, "utf8")).map((line) => `${rel(f)}:${line}`),
    );
    expect(found).toEqual([]);
    const sample = [
      'throw new HttpError(400, "rule.unknown", "Unknown rule");',
      'throw HttpError.carrying(502, code, "failed", {});',
      "if (err instanceof HttpError) throw err;",
      'throw new DomainError("not_found", "rule.unknown", "Unknown rule");',
    ].join("\n");
    expect(httpErrorsBuilt("sample.ts", sample)).toEqual([1, 2]);
  });

  it("get no repository: the deps type names no store module", () => {
    const deps = readFileSync(join(ROOT, DEPS_MODULE), "utf8");
    expect(importsOf(DEPS_MODULE, deps).filter((spec) => spec.includes("/store/"))).toEqual([]);
    expect(deps).not.toMatch(/\brepos\s*:/);
    // The check reads the imports it means to.
    expect(
      importsOf("x.ts", 'import type { SqlProxyStore } from "../store/proxy-store.js";'),
    ).toEqual(["../store/proxy-store.js"]);
  });

  it("refuses what is not a router module (the rule fires)", () => {
    const helper = "export class Refresher {}\nexport function isStale(): boolean { return true; }";
    expect(routerModuleProblems("refresher.ts", helper)).toEqual([
      "refresher.ts: exports class Refresher",
      "refresher.ts: exports no router",
    ]);
    const twoArgs =
      "export function nodesRouter(ctx: ProxyContext, deps: ServiceDeps): Router { return r; }";
    expect(routerModuleProblems("nodes.ts", twoArgs)).toEqual([
      "nodes.ts: nodesRouter(ProxyContext, ServiceDeps): Router",
    ]);
    expect(typesOnly("deps.ts", "export const x = 1;")).toBe(false);
  });
});

describe("the proxy's layers", () => {
  const sources = files(PROXY, [".ts", ".mjs"]).map((f) => ({
    file: rel(f),
    text: readFileSync(f, "utf8"),
  }));

  it("prepare SQL statements in the repositories only", () => {
    const found = sources
      .filter((s) => !s.file.startsWith(REPOSITORIES))
      .flatMap((s) => prepares(s.file, s.text).map((line) => `${s.file}:${line}`));
    expect(found).toEqual([]);
    // The repositories do prepare (the scan sees real calls).
    const inRepos = sources.filter((s) => s.file.startsWith(REPOSITORIES));
    expect(inRepos.flatMap((s) => prepares(s.file, s.text)).length).toBeGreaterThan(20);
  });

  it("load no module by a dynamic import, but for the worker entries", () => {
    const found = sources
      .filter((s) => !DYNAMIC_IMPORT_ALLOWED.has(s.file))
      .flatMap((s) => dynamicImports(s.file, s.text).map((line) => `${s.file}:${line}`));
    expect(found).toEqual([]);
  });

  it("keep Express out of domain/, store/, core/ and subscriptions/", () => {
    const found = sources
      .filter((s) => BELOW_ROUTES.some((d) => s.file.startsWith(`server/proxy/${d}/`)))
      .filter((s) => importsOf(s.file, s.text).some(isExpress))
      .map((s) => s.file);
    expect(found).toEqual([]);
  });

  it("throw domain errors below the routes, never HttpError (request parsing aside)", () => {
    const found = sources
      .filter((s) => BELOW_ROUTES.some((d) => s.file.startsWith(`server/proxy/${d}/`)))
      .filter((s) => !PARSING.has(s.file))
      .filter((s) => importsOf(s.file, s.text).some((spec) => spec.endsWith("/http/errors.js")))
      .map((s) => s.file);
    expect(found).toEqual([]);
  });

  it("give routers and helpers a context without the database", () => {
    const context = parse("context.ts", readFileSync(join(PROXY, "context.ts"), "utf8"));
    const members = context.statements
      .filter(ts.isInterfaceDeclaration)
      .find((d) => d.name.text === "ProxyContext")
      ?.members.map((m) => m.name?.getText(context));
    expect(members).toContain("store");
    expect(members).not.toContain("db");
  });

  it("find each kind of violation in a sample (the rules fire)", () => {
    const bad = [
      'import express from "express";',
      'import type { Response } from "express";',
      // Split, so the rule that tests reach storage through the repositories (a plain text
      // search) does not take this sample for a call.
      "const stmt = db." + "prepare('SELECT 1');",
      'const mod = await import("./status.js");',
      'type Iface = import("node:os").NetworkInterfaceInfo;',
    ].join("\n");
    expect(importsOf("bad.ts", bad).filter(isExpress)).toHaveLength(2);
    expect(prepares("bad.ts", bad)).toEqual([3]);
    // The type position on line 5 is not a dynamic import.
    expect(dynamicImports("bad.ts", bad)).toEqual([4]);
  });
});
