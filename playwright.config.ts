import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end tests run in Debian's Chromium against the real services started on port 0 by each
 * spec. With `npm run test:shots` (or GATEHOUSE_SHOTS=1) the pages' screenshots land in
 * artifacts/screenshots; a failed test's own screenshot and trace go to test-results.
 * Chromium's headless shell
 * (`apt-get install chromium-headless-shell`: the same Blink without the browser around it) is
 * taken when it is there: the suite ran in it in about two thirds of the full browser's time on
 * the 2-core machine. Otherwise the full browser (`apt-get install chromium`);
 * GATEHOUSE_CHROMIUM names another. The benchmarks measure in the full browser, as people use it.
 */
const chromium =
  process.env.GATEHOUSE_CHROMIUM ??
  ["/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium"].find((path) =>
    existsSync(path),
  );
// No service a spec starts announces itself on the machine's network with mDNS.
process.env.GATEHOUSE_MDNS ??= "0";

export default defineConfig({
  testDir: "test/e2e",
  testMatch: /.*\.spec\.ts/,
  // A temporary folder of the run's own, removed at its end; then holds 7890, 9090, 8080, … on
  // loopback for the run (GATEHOUSE_HOLD_PORTS=0 to skip).
  globalSetup: ["./test/scratch-dir-global.ts", "./test/held-ports-global.ts"],
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // The list, then the 15 slowest tests (where the time went).
  reporter: [["list"], ["./test/reporters/playwright-slowest.ts"]],
  outputDir: "test-results",
  use: {
    ...devices["Desktop Chrome"],
    launchOptions: {
      executablePath: chromium !== undefined && existsSync(chromium) ? chromium : undefined,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
      ],
    },
    // A failed test keeps a trace of its steps, the console, the requests and answers, and a
    // screenshot where it failed; not the screencast nor the page's DOM at every step, which
    // were most of the browsers' work (four specs: 130 s of CPU with the screencast, 68 s
    // without; two more: 99 s with the DOM snapshots, 86 s without). `npx playwright test
    // --trace on` records it all for a hunt.
    trace: { mode: "retain-on-failure", screenshots: false, snapshots: false },
    screenshot: "only-on-failure",
  },
});
