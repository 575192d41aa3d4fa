/**
 * `gatehouse --headless [options]`: the installed app runs the parcel and proxy services the
 * way `npm run serve` does, in its own main process and without any window, so one installer
 * serves a desktop and a gateway without a display (resources/linux/gatehouse.service).
 * Electron's "run as Node" fuse stays off; this flag is read by the app's own code instead.
 * No electron import here: the main process calls `runHeadless()` before it builds anything.
 */

export const HEADLESS_FLAG = "--headless";

/**
 * The services' options when the app was started headless (every argument after the flag),
 * else null. Electron's and Chromium's own switches go before the flag and are not passed on.
 */
export function headlessArgs(argv: readonly string[]): string[] | null {
  const at = argv.indexOf(HEADLESS_FLAG);
  return at < 0 ? null : argv.slice(at + 1);
}

/**
 * Starts the command-line entry (server/cli.ts) with the arguments after `--headless` and
 * answers true; answers false and does nothing without the flag. The entry reads
 * `process.argv` from its third item on (`node script ...args`), so the arguments go there
 * before it is loaded; it handles SIGTERM and SIGINT and exits the process itself.
 */
export async function runHeadless(
  argv: readonly string[] = process.argv,
  load: () => Promise<unknown> = () => import("../server/cli.js"),
): Promise<boolean> {
  const args = headlessArgs(argv);
  if (args === null) return false;
  process.argv = [process.argv[0] ?? "gatehouse", "gatehouse", ...args];
  await load();
  return true;
}
