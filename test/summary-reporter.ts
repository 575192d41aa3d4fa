import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { slowestTable, type TimedTest } from "./reporters/slowest.js";

/**
 * Ends a vitest run with the 15 slowest tests (where the time went), then one plain closing
 * line, `N passed, N failed, N skipped`, that CI tooling reads.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const timed: TimedTest[] = [];
    for (const mod of testModules) {
      const file = relative(process.cwd(), mod.moduleId);
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
        const ms = test.diagnostic()?.duration;
        if (ms !== undefined) timed.push({ name: `${file} > ${test.fullName}`, ms });
      }
      if (mod.state() === "failed" && [...mod.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(slowestTable("vitest", timed));
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
