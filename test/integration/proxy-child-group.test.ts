import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { runBounded } from "../../server/proxy/core/child-group.js";
import { ProcessSupervisor } from "../../server/proxy/core/supervisor.js";
import { killAll, processGone, untilGone } from "../helpers/processes.js";

/**
 * Programs the proxy service starts end with everything they started: a deadline ends the
 * whole process group (SIGTERM, then SIGKILL), a program that exits takes what it left in its
 * group with it, and a stopped core leaves no child of its own running.
 */

let dir: string;
const started: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gh-child-"));
});
afterEach(() => {
  killAll(started.splice(0));
  rmSync(dir, { recursive: true, force: true });
});

/** A shell script in the test's folder; `$PIDS` is a file it may write process ids to. */
function script(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\nPIDS="${join(dir, "pids")}"\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

function pids(): number[] {
  const list = readFileSync(join(dir, "pids"), "utf8").trim().split(/\s+/).map(Number);
  started.push(...list);
  return list;
}

describe.skipIf(process.platform === "win32")("runBounded", () => {
  it("ends a program that ignores SIGTERM, and its sleep, at the deadline", async () => {
    const bin = script(
      "stuck.sh",
      'trap "" TERM\nsleep 60 &\necho "$$ $!" > "$PIDS"\nwait\nwait\necho never',
    );
    const t0 = Date.now();
    const r = await runBounded(bin, ["-v"], { timeoutMs: 300, graceMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.stdout).not.toContain("never");
    expect(Date.now() - t0).toBeLessThan(3000);
    await untilGone(pids(), 2000);
  });

  it("answers as soon as a program exits, and ends what it left running in its group", async () => {
    const bin = script("quick.sh", 'sleep 60 &\necho "$$ $!" > "$PIDS"\necho "Mihomo Meta v1.2.3"');
    const t0 = Date.now();
    const r = await runBounded(bin, ["-v"], { timeoutMs: 20_000 });
    expect(r).toMatchObject({ code: 0, timedOut: false });
    expect(r.stdout).toContain("v1.2.3");
    // The backgrounded sleep held the output open; it did not hold the answer.
    expect(Date.now() - t0).toBeLessThan(5000);
    const [, sleep] = pids();
    await untilGone([sleep], 2000);
  });

  it("keeps at most the output it was told to, and lets the program finish", async () => {
    const bin = script("loud.sh", "head -c 300000 /dev/zero | tr '\\\\0' x\necho done >&2");
    const r = await runBounded(bin, [], { timeoutMs: 20_000, maxOutputBytes: 1000 });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(1000);
    expect(r.stderr.trim()).toBe("done");
  });

  it("answers a program that cannot start with its error", async () => {
    const r = await runBounded(join(dir, "missing"), ["-v"], { timeoutMs: 1000 });
    expect(r.code).toBeNull();
    expect(r.error?.message).toMatch(/ENOENT/);
  });
});

describe.skipIf(process.platform === "win32")("the supervised core", () => {
  it("is stopped with what it started: no orphan of the core stays behind", async () => {
    const bin = script("core.sh", 'sleep 60 &\necho "$$ $!" > "$PIDS"\nexec sleep 60');
    const sup = new ProcessSupervisor({
      bin,
      homeDir: dir,
      configFile: join(dir, "config.yaml"),
      clock: new ManualClock(),
      log: () => undefined,
      stopTimeoutMs: 500,
    });
    await sup.start();
    const end = Date.now() + 5000;
    while (Date.now() < end) {
      try {
        if (readFileSync(join(dir, "pids"), "utf8").trim().split(/\s+/).length === 2) break;
      } catch {
        // not written yet
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const [core, child] = pids();
    expect(processGone(child)).toBe(false);
    await sup.stop();
    await untilGone([core, child], 2000);
  });
});
