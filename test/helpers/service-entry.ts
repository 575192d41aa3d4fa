/**
 * How a test starts the headless service as a child process: the compiled JavaScript under
 * dist/serve (what `npm run serve` runs) when the run's global set-up built it, otherwise the
 * sources under tsx. The compiled start is about half as long (no TypeScript loader), and the
 * integration suite starts the service a few hundred times. A test about running from the
 * sources spawns `--import tsx server/cli.ts` itself.
 */
import { join } from "node:path";

/** Set by test/compiled-server-global.ts once dist/serve matches server/. */
export const COMPILED_SERVER_ENV = "GATEHOUSE_TEST_COMPILED_SERVER";

/** The Node arguments before the service's own options. */
export function serviceEntryArgs(): string[] {
  const entry =
    process.env[COMPILED_SERVER_ENV] === "1"
      ? join("dist", "serve", "server", "cli.js")
      : "server/cli.ts";
  return [...execArgvFor(entry), entry];
}

/**
 * The desktop's services entry (what the app's utility process runs): compiled when the run's
 * global set-up built dist/serve, otherwise the sources. The Node arguments an entry needs:
 * TypeScript sources run under tsx, compiled JavaScript as it is.
 */
export function desktopEntry(): string {
  return process.env[COMPILED_SERVER_ENV] === "1"
    ? join("dist", "serve", "server", "desktop-entry.js")
    : "server/desktop-entry.ts";
}

export function execArgvFor(entry: string): string[] {
  return entry.endsWith(".ts") ? ["--import", "tsx"] : [];
}
