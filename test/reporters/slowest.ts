/** One timed test for the closing "where the time went" table of a test run. */
export interface TimedTest {
  /** File path relative to the repository, then the test's titles. */
  readonly name: string;
  readonly ms: number;
}

/** How many of the slowest tests each runner lists at its end. */
export const SLOWEST_SHOWN = 15;

/**
 * The slowest tests of a run as plain text lines, slowest first, with the share of the summed
 * test time they took: the first place to look when the suite gets slower.
 */
export function slowestTable(
  label: string,
  tests: readonly TimedTest[],
  shown = SLOWEST_SHOWN,
): string {
  if (tests.length === 0) return "";
  const total = tests.reduce((sum, t) => sum + t.ms, 0);
  const top = [...tests].sort((a, b) => b.ms - a.ms).slice(0, shown);
  const topSum = top.reduce((sum, t) => sum + t.ms, 0);
  const lines = top.map((t) => `${seconds(t.ms).padStart(8)}  ${t.name}`);
  const share = total > 0 ? Math.round((100 * topSum) / total) : 0;
  return [
    `\n${label}: ${top.length} slowest of ${tests.length} tests (${share}% of ${seconds(total)} summed test time)`,
    ...lines,
    "",
  ].join("\n");
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
