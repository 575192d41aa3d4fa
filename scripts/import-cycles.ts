// The import graph of the TypeScript sources and the cycles in it. A runtime cycle between
// modules makes their load order decide which one sees the other's exports as undefined, so
// the tree keeps none (test/unit/import-cycles.test.ts); type-only imports vanish when
// compiled, and a cycle through them only ties the modules' meaning together, so the few
// left are listed by name in the test. Run `npx tsx scripts/import-cycles.ts [--types]` to
// list the cycles (with --types, type-only imports count too).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const SOURCE = /\.(ts|tsx|mts)$/;

/** Every TypeScript file under `dir` (declaration files aside), relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && SOURCE.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => relative(root, join(e.parentPath, e.name)).split("\\").join("/"))
    .filter((f) => !f.split("/").includes("node_modules"))
    .sort();
}

/** Whether an import or export declaration brings a value at run time. */
function bringsValue(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return false;
    const clause = node.exportClause;
    if (clause && ts.isNamedExports(clause))
      return clause.elements.length === 0 || clause.elements.some((e) => !e.isTypeOnly);
    return true;
  }
  const clause = node.importClause;
  // `import "./x.js"` runs the module.
  if (!clause) return true;
  if (clause.isTypeOnly) return false;
  if (clause.name) return true;
  const bindings = clause.namedBindings;
  if (!bindings) return false;
  if (ts.isNamespaceImport(bindings)) return true;
  // `import {} from` and `import { type A }` load nothing once compiled.
  return bindings.elements.some((e) => !e.isTypeOnly);
}

/**
 * The relative module names a source imports or re-exports for a value at run time (with
 * `withTypes`, also those it imports types from).
 */
export function runtimeImports(name: string, text: string, withTypes = false): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, false);
  return source.statements.flatMap((s) =>
    (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) &&
    s.moduleSpecifier &&
    ts.isStringLiteral(s.moduleSpecifier) &&
    s.moduleSpecifier.text.startsWith(".") &&
    (withTypes || bringsValue(s))
      ? [s.moduleSpecifier.text]
      : [],
  );
}

/** The file a relative specifier names (`./x.js` is `./x.ts` or `./x.tsx` in the sources). */
function resolveSpecifier(root: string, from: string, spec: string): string | undefined {
  const base = resolve(root, dirname(from), spec);
  const stem = base.replace(/\.(m?js|jsx)$/, "");
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(base, "index.ts")];
  const found = candidates.find((c) => SOURCE.test(c) && existsSync(c));
  return found && relative(root, found).split("\\").join("/");
}

export type ImportGraph = Map<string, string[]>;

/**
 * The runtime import graph of the sources under `dirs` (edges to files outside are kept);
 * with `withTypes`, type-only imports are edges too.
 */
export function importGraph(root: string, dirs: string[], withTypes = false): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of dirs.flatMap((d) => sourceFiles(root, d))) {
    const text = readFileSync(join(root, file), "utf8");
    const targets = runtimeImports(file, text, withTypes)
      .map((spec) => resolveSpecifier(root, file, spec))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The strongly connected groups of more than one module (and modules that import
 * themselves), each sorted, the list sorted: every group is at least one cycle (Tarjan).
 */
export function cycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) groups.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups.sort((a, b) => a[0].localeCompare(b[0]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(import.meta.dirname, "..");
  const withTypes = process.argv.includes("--types");
  const found = cycles(importGraph(root, ["server", "main", "renderer", "preload"], withTypes));
  for (const group of found) console.log(group.join("\n  ") + "\n");
  console.log(`${found.length} cycle group(s)`);
}
