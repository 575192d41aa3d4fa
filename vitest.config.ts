import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Holds 7890, 9090, 8080, … on loopback for the run (GATEHOUSE_HOLD_PORTS=0 to skip).
    globalSetup: ["./test/held-ports-global.ts"],
    // Names the test that dialled a held port in the run's final message.
    setupFiles: ["./test/held-ports-setup.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
    // No test announces the services on the machine's network (the mDNS test does, inside a
    // network namespace of its own, and turns it on there).
    env: { GATEHOUSE_MDNS: "0" },
  },
});
