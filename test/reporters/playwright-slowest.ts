import { relative } from "node:path";
import type { FullResult, Reporter, TestCase, TestResult } from "@playwright/test/reporter";
import { slowestTable, type TimedTest } from "./slowest.js";

/** Ends a Playwright run with its 15 slowest tests (where the time went), after the list. */
export default class PlaywrightSlowest implements Reporter {
  private readonly timed: TimedTest[] = [];

  onTestEnd(test: TestCase, result: TestResult): void {
    const file = relative(process.cwd(), test.location.file);
    // The title path is root, project, file, describes…, title: keep what follows the file.
    const path = test.titlePath();
    const titles = path.slice(path.findIndex((t) => t.endsWith(".spec.ts")) + 1);
    this.timed.push({ name: `${file} > ${titles.join(" > ")}`, ms: result.duration });
  }

  onEnd(_result: FullResult): void {
    process.stdout.write(slowestTable("playwright", this.timed));
  }

  printsToStdio(): boolean {
    // The list reporter still prints progress; this one only adds the closing table.
    return false;
  }
}
