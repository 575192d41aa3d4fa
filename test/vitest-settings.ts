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
      // Holds 7890, 9090, 8080, … on loopback for the run (GATEHOUSE_HOLD_PORTS=0 to skip).
      globalSetup: ["./test/held-ports-global.ts", ...(extra.globalSetup ?? [])],
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
