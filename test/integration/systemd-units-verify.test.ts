import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-ports.js";

/**
 * systemd's own check of the headless units (CI installs systemd, so there it must run), and
 * the headless entry started for real: `--headless` and the services' options, as the unit
 * passes them, bring both services up in one process that SIGTERM stops cleanly.
 */

const UNITS = ["gatehouse.service", "gatehouse-mihomo.service"];
const analyze = spawnSync("systemd-analyze", ["--version"], { encoding: "utf8" });
const haveAnalyze = analyze.status === 0;
if (!haveAnalyze) {
  const why = "systemd-analyze is not installed: the units were NOT verified";
  if (process.env.CI === "true") throw new Error(`${why} (CI installs the systemd package)`);
  console.warn(`SKIPPED: ${why}`);
}

const scratch = mkdtempSync(join(tmpdir(), "gatehouse-units-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!haveAnalyze)("systemd-analyze verify", () => {
  it("accepts both units without a single complaint", () => {
    // verify also checks that ExecStart's program exists: the app is not installed here, so
    // copies name a stand-in at another path; every other line is the unit's own.
    const app = join(scratch, "gatehouse");
    writeFileSync(app, "#!/bin/sh\n");
    chmodSync(app, 0o755);
    const copies = UNITS.map((name) => {
      const text = readFileSync(join("resources/linux", name), "utf8");
      const copy = join(scratch, name);
      writeFileSync(
        copy,
        text.replace(/^ExecStart=\/opt\/Gatehouse\/gatehouse /m, `ExecStart=${app} `),
      );
      return copy;
    });
    expect(readFileSync(copies[0], "utf8")).toContain(`ExecStart=${app} `);
    const r = spawnSync("systemd-analyze", ["verify", ...copies], { encoding: "utf8" });
    // systemd only warns about unknown keys and unparsable values and still exits 0: any line
    // about these files fails the test too.
    const said = `${r.stdout}${r.stderr}`
      .split("\n")
      .filter((line) => UNITS.some((u) => line.includes(u)));
    expect(said).toEqual([]);
    expect(r.status, r.stderr).toBe(0);
  });

  it("notices a broken directive (the check can fail)", () => {
    const bad = join(scratch, "broken.service");
    writeFileSync(bad, "[Service]\nExecStart=/bin/true\nProtectSystem=sometimes\n");
    const r = spawnSync("systemd-analyze", ["verify", bad], { encoding: "utf8" });
    expect(`${r.stdout}${r.stderr}`).toMatch(/broken\.service.*protect system/i);
  });
});

describe("gatehouse --headless", () => {
  it("starts both services in one process from the arguments after the flag and stops on SIGTERM", async () => {
    const dataDir = join(scratch, "data");
    // As Electron's main process would: argv[0] is the app, the flag and the options follow.
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import(${JSON.stringify(resolve("main/headless.ts"))}).then((m) => m.runHeadless())`,
        // Node's own options end here; what follows is process.argv[1...].
        "--",
        "--headless",
        "--data-dir",
        dataDir,
        "--host",
        "127.0.0.1",
        "--parcel-port",
        "0",
        "--proxy-port",
        "0",
        "--core-bin",
        resolve("test/fixtures/fake-core.mjs"),
        "--core-controller-port",
        String(await freePort()),
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, GATEHOUSE_LOG_LEVEL: "error" } },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", () => undefined);
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const deadline = Date.now() + 15_000;
    while (!/proxy service listening on http:\/\/127\.0\.0\.1:\d+/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(out).toMatch(/parcel service listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toMatch(/proxy service listening on http:\/\/127\.0\.0\.1:\d+/);
    const url = /proxy service listening on (\S+)/.exec(out)?.[1] ?? "";
    const res = await fetch(`${url}/api/v1/auth/status`);
    expect(res.status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 30_000);
});
