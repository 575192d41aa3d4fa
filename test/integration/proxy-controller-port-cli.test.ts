import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "./proxy-core-harness.js";
import { serviceEntryArgs } from "../helpers/service-entry.js";

/** `npm run serve -- ...` as a real child process, with its output collected. */
function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
  const proc = spawn(process.execPath, [...serviceEntryArgs(), ...args], {
    env: { ...process.env, GATEHOUSE_CORE_CONTROLLER_PORT: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let err = "";
  proc.stdout.on("data", (b: Buffer) => lines.push(...b.toString().split("\n").filter(Boolean)));
  proc.stderr.on("data", (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((r) => proc.on("exit", (code) => r(code)));
  /** The exit code; a process still running after `ms` (the option was ignored) is killed. */
  const exitCode = async (ms = 15_000): Promise<number | null> => {
    const timer = setTimeout(() => proc.kill("SIGKILL"), ms);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  const line = async (re: RegExp): Promise<RegExpExecArray> => {
    for (let i = 0; i < 300; i++) {
      for (const l of lines) {
        const m = re.exec(l);
        if (m) return m;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no line matching ${re}; got:\n${lines.join("\n")}\n${err}`);
  };
  return { proc, exited, exitCode, line, stderr: () => err };
}

describe("npm run serve -- --core-controller-port", () => {
  it.each([
    [["--core-controller-port", "0"]],
    [["--core-controller-port=70000"]],
    [["--core-controller-port", "abc"]],
  ])("exits 2 with one line for %j", async (args) => {
    const s = serve(["--proxy-only", ...args]);
    expect(await s.exitCode()).toBe(2);
    const out = s.stderr().trim().split("\n");
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(
      /^gatehouse: --core-controller-port must be a port number from 1 to 65535/,
    );
  });

  it("exits 2 for a bad GATEHOUSE_CORE_CONTROLLER_PORT", async () => {
    const s = serve(["--proxy-only"], { GATEHOUSE_CORE_CONTROLLER_PORT: "99999" });
    expect(await s.exitCode()).toBe(2);
    expect(s.stderr().trim().split("\n")).toHaveLength(1);
  });

  it("controls the core on the given port: the status shows it and a taken port is named", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gh-ctl-port-"));
    const port = await freePort();
    const holder = net.createServer((sock) => sock.destroy());
    await new Promise<void>((r) => holder.listen(port, "127.0.0.1", r));
    const s = serve([
      "--proxy-only",
      "--host",
      "127.0.0.1",
      "--proxy-port",
      "0",
      "--data-dir",
      dataDir,
      "--core-bin",
      resolve("test/fixtures/fake-core.mjs"),
      "--core-controller-port",
      String(port),
    ]);
    try {
      const base = (await s.line(/^proxy service listening on (\S+)$/))[1];
      const token = (await s.line(/^proxy setup token: (\S+)$/))[1];
      const setup = await fetch(`${base}/api/v1/auth/setup`, {
        method: "POST",
        headers: { origin: base, "content-type": "application/json" },
        body: JSON.stringify({ token, password: "a long enough password" }),
      });
      expect(setup.status).toBe(200);
      const cookie = (setup.headers.get("set-cookie") ?? "").split(";")[0];
      const { csrf } = (await setup.json()) as { csrf: string };
      const headers = { cookie, origin: base, "content-type": "application/json" };

      const start = await fetch(`${base}/api/v1/system/service`, {
        method: "POST",
        headers: { ...headers, "x-csrf-token": csrf },
        body: JSON.stringify({ action: "start" }),
      });
      expect(start.status).toBe(400);
      const refused = (await start.json()) as { error: string; code: string };
      expect(refused.error).toMatch(new RegExp(`^Port ${port} is used by another program`));
      expect(refused.code).toBe("core.port_in_use");

      const status = (await (await fetch(`${base}/api/v1/status`, { headers })).json()) as {
        controllerPort: number;
        configErrorCode: string;
      };
      expect(status).toMatchObject({ controllerPort: port, configErrorCode: "core.port_in_use" });
    } finally {
      s.proc.kill("SIGTERM");
      await s.exited;
      await new Promise((r) => holder.close(r));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
