import { describe, expect, it } from "vitest";
import { pathToFileURL } from "node:url";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { relaunchHeadless, startHeadless } from "../../main/headless.js";

/**
 * `gatehouse --headless` outside its unit: the relaunch with the display switches (its exit
 * code is the app's), and a start that fails ends the process with a code and a sentence.
 */

describe("relaunching for a display-less start", () => {
  it("exits with the new process's own code", () => {
    expect(relaunchHeadless(process.execPath, ["-e", "process.exit(3)"], process.env)).toBe(3);
    expect(relaunchHeadless(process.execPath, ["-e", ""], process.env)).toBe(0);
  });

  it("passes the arguments and the environment on", () => {
    const args = [
      "-e",
      "process.exit(process.argv[1] === '--headless' && process.env.MARK === 'x' ? 7 : 1)",
      "--",
      "--headless",
    ];
    expect(relaunchHeadless(process.execPath, args, { ...process.env, MARK: "x" })).toBe(7);
  });

  it("exits with 128 + the signal that ended it, as a shell would say", () => {
    const args = ["-e", "process.kill(process.pid, 'SIGTERM')"];
    expect(relaunchHeadless(process.execPath, args, process.env)).toBe(128 + 15);
  });

  it("says so and exits 1 when it cannot start at all", () => {
    expect(relaunchHeadless("/nonexistent/gatehouse", [], process.env)).toBe(1);
  });
});

describe("starting headless", () => {
  it("ends the process with code 1 and a sentence when the services cannot load", async () => {
    // A module that fails as a native module built for another ABI does.
    const dir = mkdtempSync(join(tmpdir(), "gh-headless-"));
    const file = join(dir, "cli.mjs");
    writeFileSync(
      file,
      "throw new Error('The module was compiled against a different Node.js version');\n",
    );
    const exits: number[] = [];
    const lines: string[] = [];
    const argv = process.argv;
    await startHeadless({
      argv: ["gatehouse", "--headless", "--data-dir", dir],
      env: { GATEHOUSE_BUNDLED_CORE: "/opt/Gatehouse/resources/core/mihomo" },
      load: () => import(pathToFileURL(file).href),
      exit: (code) => exits.push(code),
      log: (line) => lines.push(line),
    }).finally(() => {
      process.argv = argv;
    });
    expect(exits).toEqual([1]);
    expect(lines[0]).toMatch(
      /^gatehouse: could not start the services: Error: The module was compiled/,
    );
    // The services were told where the bundled core is, whatever PATH says.
    expect(process.env.GATEHOUSE_BUNDLED_CORE).toBe("/opt/Gatehouse/resources/core/mihomo");
    delete process.env.GATEHOUSE_BUNDLED_CORE;
  });

  it("does not exit when the services start", async () => {
    const exits: number[] = [];
    const argv = process.argv;
    await startHeadless({
      argv: ["gatehouse", "--headless"],
      env: {},
      load: async () => undefined,
      exit: (code) => exits.push(code),
    }).finally(() => {
      process.argv = argv;
    });
    expect(exits).toEqual([]);
  });
});
