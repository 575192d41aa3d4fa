/**
 * `npm run dist`: builds the installers with electron-builder, then gives node_modules back its
 * better-sqlite3 for Node. electron-builder's `npmRebuild` rebuilds native modules for Electron
 * inside the project's own node_modules (@electron/rebuild with the app folder as build path),
 * and the installers need exactly that; but afterwards `npm test` and `npm run serve` would
 * fail with a NODE_MODULE_VERSION mismatch. So, whatever the packaging did, the module is
 * rebuilt for this Node and loaded once to prove it; a failure of either step fails the run.
 *
 *   tsx scripts/dist.ts [electron-builder options...]
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

export interface Step {
  command: string;
  args: string[];
}

/** What `npm run dist -- <args>` runs, in order; every step runs even when packaging failed. */
export function distSteps(builderArgs: readonly string[]): { pack: Step; restore: Step[] } {
  return {
    pack: { command: "electron-builder", args: [...builderArgs] },
    restore: [
      // For the Node running this (prebuilt download, else compiled from source).
      { command: "npm", args: ["rebuild", "better-sqlite3"] },
      {
        command: process.execPath,
        args: ["-e", "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"],
      },
    ],
  };
}

export type Run = (step: Step) => number;

const runStep: Run = (step) => {
  const result = spawnSync(step.command, step.args, {
    stdio: "inherit",
    shell: process.platform === "win32",
  });
  return result.status ?? 1;
};

/** Runs the steps; the exit code is packaging's, unless restoring node_modules failed. */
export function dist(builderArgs: readonly string[], run: Run = runStep): number {
  const { pack, restore } = distSteps(builderArgs);
  const packed = run(pack);
  for (const step of restore) {
    const code = run(step);
    if (code !== 0) {
      console.error(
        "dist: better-sqlite3 in node_modules could not be rebuilt for Node; run `npm rebuild better-sqlite3` before `npm test`",
      );
      return packed !== 0 ? packed : code;
    }
  }
  return packed;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  process.exit(dist(process.argv.slice(2)));
