/**
 * `gatehouse --headless [options]`: the installed app runs the parcel and proxy services the
 * way `npm run serve` does, in its own main process and without any window, so one installer
 * serves a desktop and a gateway without a display (resources/linux/gatehouse.service).
 * Electron's "run as Node" fuse stays off; this flag is read by the app's own code instead.
 * No electron import here: the main process calls `runHeadless()` before it builds anything.
 */
import { spawnSync } from "node:child_process";
import { constants as osConstants } from "node:os";

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

export interface StartHeadlessOptions {
  argv?: readonly string[];
  /** Environment of the services (the bundled core is named here, see `servicesEnv`). */
  env: NodeJS.ProcessEnv;
  load?: () => Promise<unknown>;
  /** Ends the process with this code (`app.exit`). */
  exit(code: number): void;
  log?: (line: string) => void;
}

/**
 * The headless start as the main process runs it: the services' environment first, then the
 * command-line entry; any failure to load or start it ends the process with code 1 and says
 * why, so a service manager sees the failure instead of an idle process.
 */
export async function startHeadless(options: StartHeadlessOptions): Promise<void> {
  const log = options.log ?? ((line: string) => console.error(line));
  Object.assign(process.env, options.env);
  try {
    await runHeadless(options.argv, options.load);
  } catch (err) {
    log(`gatehouse: could not start the services: ${(err as Error)?.stack ?? String(err)}`);
    options.exit(1);
  }
}

/**
 * Runs this app again with `args` (see `headlessRelaunchArgs` in platform.ts) and answers the
 * code to exit with: the new process's own, or 128 + the signal that ended it. Synchronous on
 * purpose: the first process must not get as far as opening a display while it waits.
 */
export function relaunchHeadless(
  execPath: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  spawn: typeof spawnSync = spawnSync,
): number {
  const result = spawn(execPath, [...args], { stdio: "inherit", env });
  if (result.error) {
    console.error(`gatehouse: could not start again without a display: ${result.error.message}`);
    return 1;
  }
  if (result.status !== null) return result.status;
  const signal = result.signal ? osConstants.signals[result.signal] : undefined;
  return signal ? 128 + signal : 1;
}
