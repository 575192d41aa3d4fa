import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import scratchDir from "../scratch-dir-global.js";

const saved = {
  TMPDIR: process.env.TMPDIR,
  GATEHOUSE_MACHINE_TMP: process.env.GATEHOUSE_MACHINE_TMP,
  GATEHOUSE_KEEP_TMP: process.env.GATEHOUSE_KEEP_TMP,
};
const made: string[] = [];

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder standing for the machine's temporary folder, removed after the test. */
function machineTmp(): string {
  const dir = mkdtempSync(join(tmpdir(), "gh-machine-tmp-"));
  made.push(dir);
  return dir;
}

describe("the run's own temporary folder (test/scratch-dir-global.ts)", () => {
  it("points TMPDIR at a new folder inside the machine's, and removes it whole at the end", async () => {
    const machine = machineTmp();
    process.env.GATEHOUSE_MACHINE_TMP = machine;
    process.env.TMPDIR = "/somewhere/else";
    const teardown = scratchDir();

    const run = tmpdir();
    expect(dirname(run)).toBe(machine);
    expect(process.env.TMPDIR).toBe(run);
    expect(process.env.GATEHOUSE_MACHINE_TMP).toBe(machine);
    // What a test leaves: a data folder, and one it took the write permission off.
    const data = mkdtempSync(join(tmpdir(), "gh-settings-"));
    writeFileSync(join(data, "settings.json"), "{}");
    const locked = join(run, "locked");
    mkdirSync(join(locked, "inner"), { recursive: true });
    writeFileSync(join(locked, "inner", "file"), "x");
    chmodSync(join(locked, "inner"), 0o500);
    chmodSync(locked, 0o500);

    await teardown();
    expect(existsSync(run)).toBe(false);
    expect(process.env.TMPDIR).toBe("/somewhere/else");
    expect(process.env.GATEHOUSE_MACHINE_TMP).toBe(machine);
  });

  it("takes the machine's temporary folder from os.tmpdir() when no run named it, and forgets it after", async () => {
    const machine = machineTmp();
    delete process.env.GATEHOUSE_MACHINE_TMP;
    process.env.TMPDIR = machine;
    const teardown = scratchDir();
    expect(process.env.GATEHOUSE_MACHINE_TMP).toBe(machine);
    expect(dirname(tmpdir())).toBe(machine);
    await teardown();
    expect(process.env.GATEHOUSE_MACHINE_TMP).toBeUndefined();
    expect(process.env.TMPDIR).toBe(machine);
  });

  it("keeps the folder with GATEHOUSE_KEEP_TMP=1, for a look after a failure", async () => {
    process.env.GATEHOUSE_MACHINE_TMP = machineTmp();
    process.env.GATEHOUSE_KEEP_TMP = "1";
    const teardown = scratchDir();
    const run = tmpdir();
    await teardown();
    expect(existsSync(run)).toBe(true);
  });
});
