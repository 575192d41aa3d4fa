import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Global setup of both test runners (vitest and Playwright): gives the run a temporary folder of
 * its own and points TMPDIR at it, so what the tests and every process they start put in the
 * temporary folder (data folders, fake homes, settings files, browser profiles) lands there; at
 * the end of the run, passed or failed, the folder goes. Before this, each `npm test` left about
 * a hundred folders in /tmp that no test removed. GATEHOUSE_KEEP_TMP=1 keeps it, printing where.
 *
 * What machine-wide coordination needs (the free-port claims) stays in the machine's temporary
 * folder, named by GATEHOUSE_MACHINE_TMP.
 */
export default function scratchDir(): () => Promise<void> {
  const before = {
    TMPDIR: process.env.TMPDIR,
    GATEHOUSE_MACHINE_TMP: process.env.GATEHOUSE_MACHINE_TMP,
  };
  const machineTmp = before.GATEHOUSE_MACHINE_TMP ?? tmpdir();
  const dir = mkdtempSync(join(machineTmp, "gatehouse-tests-"));
  process.env.GATEHOUSE_MACHINE_TMP = machineTmp;
  process.env.TMPDIR = dir;
  return async () => {
    restore("TMPDIR", before.TMPDIR);
    restore("GATEHOUSE_MACHINE_TMP", before.GATEHOUSE_MACHINE_TMP);
    if (process.env.GATEHOUSE_KEEP_TMP === "1") {
      process.stdout.write(`\nThe run's temporary files are kept in ${dir}\n`);
      return;
    }
    removeTree(dir);
  };
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/**
 * Removes `dir` whole. A test that takes the write permission off a folder (to fail a write on
 * purpose) may leave it so; for anyone but root that stops a plain removal, so the permissions
 * are given back and it is tried again. What still cannot go is said, and does not fail the run.
 */
export function removeTree(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    return;
  } catch {
    allowAll(dir);
  }
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    process.stderr.write(
      `\nCould not remove the run's temporary folder ${dir}: ${String(error)}\n`,
    );
  }
}

function allowAll(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) return;
    chmodSync(path, 0o700);
    for (const name of readdirSync(path)) allowAll(join(path, name));
  } catch {
    // Gone already, or not ours: the second removal says what is left.
  }
}
