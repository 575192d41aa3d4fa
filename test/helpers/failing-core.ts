import { chmodSync, copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

/** What mihomo prints when it gives up at start: its own words, in English. */
export const FATAL_LINE =
  'time="2026-01-01T00:00:00.000000000Z" level=fatal msg="Start TUN listening error: operation not permitted"';
/** The core's words when its configuration test fails. */
export const TEST_FAILED_LINE =
  'time="2026-01-01T00:00:00.000000000Z" level=error msg="rules[0] [IP-CIDR,10.0.0.300/8,DIRECT] error: payloadRule error"';

/**
 * A core executable that answers `-v` (and, unless `failTest`, `-t`) as the fake core does,
 * but when run for real prints a fatal line and exits at once: a core that stops right after
 * starting. With `failTest`, its configuration test fails instead.
 */
export function failingCore(options: { failTest?: boolean } = {}): { bin: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "gh-failing-core-"));
  const bin = join(dir, "mihomo");
  const test = options.failTest
    ? `  if [ "$a" = "-t" ]; then echo '${TEST_FAILED_LINE}'; echo "configuration file test failed"; exit 1; fi\n`
    : `  if [ "$a" = "-t" ]; then exec "${process.execPath}" "${FAKE_CORE}" "$@"; fi\n`;
  writeFileSync(
    bin,
    `#!/bin/sh
for a in "$@"; do
  if [ "$a" = "-v" ]; then exec "${process.execPath}" "${FAKE_CORE}" "$@"; fi
${test}done
echo 'time="2026-01-01T00:00:00.000000000Z" level=info msg="Start initial configuration in progress"'
echo '${FATAL_LINE}'
exit 1
`,
  );
  chmodSync(bin, 0o755);
  // Its geodata beside it, as the installed app keeps mihomo's (a start needs the files).
  for (const name of ["geoip.metadb", "geosite.dat"])
    copyFileSync(resolve("test/fixtures", name), join(dir, name));
  return { bin, dir };
}
