import { realpathSync } from "node:fs";
import { basename, resolve, sep } from "node:path";
import { MINUTE_MS } from "../../contract/time-units.js";
import { runBounded } from "./child-group.js";

export interface CheckResult {
  ok: boolean;
  /** The core's own words (last lines of its output). */
  message: string;
}

async function run(
  bin: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string; error?: Error }> {
  const r = await runBounded(bin, args, { timeoutMs });
  const output = `${r.stdout}\n${r.stderr}`.trim();
  // The program by its file name only: these words reach the console.
  const name = basename(bin);
  const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
  const error = r.error
    ? new Error(`${name} could not be started${code ? ` (${code})` : ""}`, { cause: r.error })
    : r.timedOut
      ? new Error(`${name} did not finish within ${Math.ceil(timeoutMs / 1000)} s`)
      : undefined;
  return { code: r.timedOut ? null : r.code, output, error };
}

/**
 * The core's last `n` non-blank lines of output, at most 2000 characters: its own words,
 * which the console shows apart from its sentence (folded, as "Core output").
 */
export function lastLines(text: string | readonly string[], n: number): string {
  return (typeof text === "string" ? text.split(/\r?\n/) : text.flatMap((l) => l.split(/\r?\n/)))
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n)
    .join("\n")
    .slice(-2000);
}

/**
 * The core's words with the paths of its home dir made relative to it (`configuration file
 * config.yaml test failed`, `providers/sub-x.yaml`): they reach the console, and an absolute
 * path would tell every LAN client the layout of this machine.
 */
export function withoutHome(text: string, homeDir: string, file: string): string {
  const homes = new Set([resolve(homeDir)]);
  try {
    homes.add(realpathSync(homeDir));
  } catch {
    // a home dir that is gone has no other spelling
  }
  let out = text.split(resolve(file)).join(basename(file));
  for (const home of homes) out = out.split(`${home}${sep}`).join("").split(home).join(".");
  return out;
}

/** `<core> -d <home> -t -f <file>`: the core's own configuration test. */
export async function checkConfig(
  bin: string,
  homeDir: string,
  file: string,
  timeoutMs = MINUTE_MS,
): Promise<CheckResult> {
  const raw = await run(bin, ["-d", homeDir, "-t", "-f", file], timeoutMs);
  const r = { ...raw, output: withoutHome(raw.output, homeDir, file) };
  if (r.code === 0) return { ok: true, message: lastLines(r.output, 1) };
  const why = lastLines(r.output, 6) || r.error?.message || "the configuration test failed";
  return { ok: false, message: why };
}

/** How long `-v` may take: it prints one line. */
export const VERSION_TIMEOUT_MS = 10_000;

/** `<bin> -v`: its whole output (mihomo prints one line), or null when it failed or hung. */
export async function versionOutput(
  bin: string,
  timeoutMs = VERSION_TIMEOUT_MS,
): Promise<string | null> {
  const r = await run(bin, ["-v"], timeoutMs);
  return r.code === 0 ? r.output : null;
}

/** The version in a `-v` output (e.g. `v1.19.2`), or "". */
export function versionIn(output: string): string {
  const m = /\bv?(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)/.exec(output);
  return m ? `v${m[1]}` : "";
}

/** Version reported by `<core> -v` (e.g. `v1.19.2`), or "" when it cannot be read. */
export async function binaryVersion(bin: string, timeoutMs = VERSION_TIMEOUT_MS): Promise<string> {
  return versionIn((await versionOutput(bin, timeoutMs)) ?? "");
}
