import { execFile } from "node:child_process";
import { MINUTE_MS } from "../../contract/time-units.js";

export interface CheckResult {
  ok: boolean;
  /** The core's own words (last lines of its output). */
  message: string;
}

function run(
  bin: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string; error?: Error }> {
  return new Promise((resolve) => {
    execFile(
      bin,
      args,
      { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        const output = `${stdout}\n${stderr}`.trim();
        if (!error) return resolve({ code: 0, output });
        const code = typeof error.code === "number" ? error.code : null;
        resolve({ code, output, error });
      },
    );
  });
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

/** `<core> -d <home> -t -f <file>`: the core's own configuration test. */
export async function checkConfig(
  bin: string,
  homeDir: string,
  file: string,
  timeoutMs = MINUTE_MS,
): Promise<CheckResult> {
  const r = await run(bin, ["-d", homeDir, "-t", "-f", file], timeoutMs);
  if (r.code === 0) return { ok: true, message: lastLines(r.output, 1) };
  const why = lastLines(r.output, 6) || r.error?.message || "the configuration test failed";
  return { ok: false, message: why };
}

/** Version reported by `<core> -v` (e.g. `v1.19.2`), or "" when it cannot be read. */
export async function binaryVersion(bin: string, timeoutMs = 10_000): Promise<string> {
  const r = await run(bin, ["-v"], timeoutMs);
  if (r.code !== 0) return "";
  const m = /\bv?(\d+\.\d+\.\d+[0-9A-Za-z.+-]*)/.exec(r.output);
  return m ? `v${m[1]}` : "";
}
