import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { defineConfig, type ViteUserConfig } from "vitest/config";

/**
 * The settings every vitest run shares (`vitest.config.ts` runs both folders, for a single
 * file or a watch; `vitest.unit.config.ts` and `vitest.integration.config.ts` are the two steps
 * of `npm test`, so each says where its time goes).
 */
export function vitestSettings(
  include: string[],
  extra: {
    setupFiles?: string[];
    testTimeout?: number;
    globalSetup?: string[];
    maxWorkers?: number;
  } = {},
): ViteUserConfig {
  const timeout = extra.testTimeout ?? 30_000;
  return defineConfig({
    test: {
      include,
      testTimeout: timeout,
      hookTimeout: timeout,
      pool: "forks",
      // Vitest's default is one worker less than the cores (one on a 2-core machine).
      ...(extra.maxWorkers === undefined ? {} : { maxWorkers: extra.maxWorkers }),
      // A temporary folder of the run's own, removed at its end; then holds 7890, 9090, 8080, …
      // on loopback for the run (GATEHOUSE_HOLD_PORTS=0 to skip).
      globalSetup: [
        "./test/scratch-dir-global.ts",
        "./test/held-ports-global.ts",
        ...(extra.globalSetup ?? []),
      ],
      // Names the test that dialled a held port in the run's final message.
      setupFiles: ["./test/held-ports-setup.ts", ...(extra.setupFiles ?? [])],
      // The 15 slowest tests, then the closing count line.
      reporters: ["default", "./test/summary-reporter.ts"],
      // No test announces the services on the machine's network (the mDNS test does, inside a
      // network namespace of its own, and turns it on there).
      env: { GATEHOUSE_MDNS: "0" },
    },
  });
}

/**
 * The test files of `dir` as two projects. In the first, the files of a worker share the
 * product's modules: each worker imports them once instead of once per file (vitest's
 * isolation), which was half of the unit run's time and a third of the integration run's CPU.
 * The second isolates each file as vitest does by default: `ownProcess` (files that must not
 * share a process), and every file that replaces a module with `vi.mock` (in a shared worker,
 * another file may have imported the real module first, and the mock would not take). A file
 * that changes something global puts it back in an afterEach (fake timers, stubbed globals,
 * environment variables, spies).
 */
export function sharedModuleProjects(
  settings: ViteUserConfig,
  dir: string,
  name: string,
  ownProcess: string[] = [],
): ViteUserConfig {
  const files = (readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => join(dir, file).split("\\").join("/"));
  const mocking = files.filter((file) => /\bvi\.mock\(/.test(readFileSync(file, "utf8")));
  const isolated = [...new Set([...ownProcess, ...mocking])].sort();
  const projects: NonNullable<NonNullable<ViteUserConfig["test"]>["projects"]> = [
    { extends: true, test: { name, include: files, exclude: isolated, isolate: false } },
  ];
  if (isolated.length > 0) {
    projects.push({
      extends: true,
      test: { name: `${name}, own process`, include: isolated, isolate: true },
    });
  }
  return { ...settings, test: { ...settings.test, projects } };
}
