import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-ports.js";
import { holdPorts, reachedProblem, type HeldPorts } from "../helpers/held-ports.js";

let ports: HeldPorts | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await ports?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
}

describe("the held-ports guard", () => {
  it("counts a dial from this run and names the process", async () => {
    const port = await freePort();
    ports = await holdPorts([port]);
    expect(ports.held).toEqual([port]);
    const r = await fetch(`http://127.0.0.1:${port}/`);
    expect(r.status).toBe(503);
    await until(() => ports!.reached().length > 0);
    expect(ports.reached()).toHaveLength(1);
    expect(ports.reached()[0]).toMatch(new RegExp(`^${port}/tcp`));
    expect(reachedProblem(ports.reached())).toContain(`${port}/tcp`);
  });

  it.runIf(process.platform === "linux")(
    "does not count a dial from a process outside this run (another run on the machine)",
    async () => {
      const port = await freePort();
      ports = await holdPorts([port]);
      const dir = mkdtempSync(join(tmpdir(), "gh-held-"));
      dirs.push(dir);
      const out = join(dir, "status");
      // The shell starts the dialler in the background and exits: the dialler is re-parented
      // away from this process, as another program's would be.
      const script =
        `setTimeout(async () => { const r = await fetch("http://127.0.0.1:${port}/"); ` +
        `require("fs").writeFileSync(${JSON.stringify(out)}, String(r.status)); }, 300);`;
      await new Promise<void>((ok, fail) =>
        execFile("sh", ["-c", `"$0" -e '${script}' >/dev/null 2>&1 &`, process.execPath], (err) =>
          err ? fail(err) : ok(),
        ),
      );
      await until(() => existsSync(out) && readFileSync(out, "utf8") !== "");
      expect(readFileSync(out, "utf8")).toBe("503");
      expect(ports.reached()).toEqual([]);
    },
  );
});
