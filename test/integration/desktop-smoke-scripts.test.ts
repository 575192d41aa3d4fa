import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The parts of the release's smoke tests that can run here. The deb's check in its container
 * (scripts/smoke/deb-install-and-run.sh) ends in `gatehouse --headless` through the command
 * the package puts on PATH and scripts/smoke/headless-health.sh; both run here for real, on an
 * installed tree whose app binary is a stand-in that runs the real services with Node (no
 * Electron runs here). Every shell script of the packaging is checked by shellcheck.
 */

const ROOT = process.cwd();
const HEALTH = join(ROOT, "scripts/smoke/headless-health.sh");
const haveShellcheck = spawnSync("shellcheck", ["--version"]).status === 0;
if (!haveShellcheck && !process.env.CI) console.warn("shellcheck tests skipped: no shellcheck");

/** Runs headless-health.sh with `command`; answers its exit code and output. */
function health(command: string[], deadline: number): { code: number | null; out: string } {
  const result = spawnSync("bash", [HEALTH, ...command], {
    encoding: "utf8",
    env: { ...process.env, SMOKE_DEADLINE: String(deadline) },
    timeout: (deadline + 30) * 1000,
  });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

/**
 * /opt/Gatehouse as the deb lays it out, with /usr/bin/gatehouse linked to the launcher. The
 * stand-in app refuses to start headless without the display-less switches (as Electron stops
 * without a display), then runs the real services with the options after --headless.
 */
function installedTree(): string {
  const root = mkdtempSync(join(tmpdir(), "gh-installed-"));
  const opt = join(root, "opt", "Gatehouse");
  mkdirSync(join(opt, "resources", "linux"), { recursive: true });
  const launcher = join(opt, "resources", "linux", "gatehouse-launcher.sh");
  writeFileSync(launcher, readFileSync("resources/linux/gatehouse-launcher.sh"), { mode: 0o755 });
  const tsx = resolve("node_modules/tsx/dist/loader.mjs");
  writeFileSync(
    join(opt, "gatehouse"),
    [
      "#!/bin/bash",
      "set -euo pipefail",
      'case " $* " in *" --ozone-platform=headless "*" --no-sandbox "*) ;;',
      '  *) echo "Missing X server or $DISPLAY" >&2; exit 1 ;; esac',
      'while [ "$1" != "--headless" ]; do shift; done; shift',
      `cd '${ROOT}'`,
      `exec '${process.execPath}' --import '${tsx}' server/cli.ts "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  mkdirSync(join(root, "usr", "bin"), { recursive: true });
  spawnSync("ln", ["-s", launcher, join(root, "usr", "bin", "gatehouse")]);
  return join(root, "usr", "bin", "gatehouse");
}

describe("the headless smoke test", () => {
  it("passes `gatehouse --headless` of an installed tree: both services answer, then a clean stop", () => {
    // The release asks 10 s of the packaged app; through tsx on a shared machine, more.
    const { code, out } = health([installedTree(), "--headless"], 45);
    expect(out).toMatch(/answered \d+ ms after the start/);
    expect(out).toContain("stopped cleanly");
    expect(code).toBe(0);
  });

  it("fails when the app stops before answering, with its output", () => {
    const { code, out } = health(
      ["bash", "-c", "echo 'Missing X server or $DISPLAY' >&2; exit 1"],
      5,
    );
    expect(code).toBe(1);
    expect(out).toContain("the command ended (exit code 1) before both services answered");
    expect(out).toContain("Missing X server");
  });

  it("fails when the services do not answer within the deadline, and leaves nothing running", () => {
    const marker = `gh-smoke-${process.pid}-${Date.now()}`;
    const started = Date.now();
    const { code, out } = health(["bash", "-c", `exec -a ${marker} sleep 60`], 2);
    expect(code).toBe(1);
    expect(out).toContain("did not both answer within 2 s");
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(spawnSync("pgrep", ["-f", marker]).status).not.toBe(0);
  });
});

describe.skipIf(!haveShellcheck && !process.env.CI)("the packaging's shell scripts", () => {
  it("pass shellcheck (the deb's scripts as electron-builder renders them)", () => {
    const dir = mkdtempSync(join(tmpdir(), "gh-rendered-"));
    const scripts: string[] = [];
    for (const folder of ["scripts/smoke", "resources/linux"])
      for (const name of readdirSync(folder).filter((n) => n.endsWith(".sh"))) {
        const text = readFileSync(join(folder, name), "utf8");
        // electron-builder fills in the two names in braces (FpmTarget's templates).
        const rendered = text
          .replaceAll("${sanitizedProductName}", "Gatehouse")
          .replaceAll("${executable}", "gatehouse");
        const file = join(dir, `${folder.replace("/", "-")}-${name}`);
        writeFileSync(file, rendered);
        scripts.push(file);
      }
    expect(scripts.length).toBeGreaterThanOrEqual(7);
    const result = spawnSync("shellcheck", ["--severity=style", ...scripts], { encoding: "utf8" });
    expect(result.stdout).toBe("");
    expect(result.status).toBe(0);
    expect(existsSync(HEALTH)).toBe(true);
  });
});
