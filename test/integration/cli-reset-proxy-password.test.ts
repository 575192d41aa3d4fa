import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-ports.js";
import { serviceEntryArgs } from "../helpers/service-entry.js";

/** Runs the headless service as `npm run serve` does (compiled), as a real child process. */
function serve(args: string[]) {
  const proc = spawn(process.execPath, [...serviceEntryArgs(), ...args], {
    env: { ...process.env, GATEHOUSE_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let err = "";
  proc.stdout.on("data", (b: Buffer) => lines.push(...b.toString().split("\n").filter(Boolean)));
  proc.stderr.on("data", (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  const waitFor = async (re: RegExp): Promise<RegExpExecArray> => {
    for (let i = 0; i < 300; i++) {
      for (const l of lines) {
        const m = re.exec(l);
        if (m) return m;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no line matching ${re}; got:\n${lines.join("\n")}\n${err}`);
  };
  const stop = async (): Promise<number | null> => {
    proc.kill("SIGTERM");
    return exited;
  };
  return { proc, lines, waitFor, stop, stderr: () => err };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function proxyArgs(): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-proxy-"));
  dirs.push(dataDir);
  // Never the production controller port, which a real core may hold.
  const controller = String(await freePort());
  return [
    "--proxy-only",
    "--host",
    "127.0.0.1",
    "--proxy-port",
    "0",
    "--core-controller-port",
    controller,
    "--data-dir",
    dataDir,
  ];
}

const LISTENING = /^proxy service listening on (\S+)$/;
const NEW_PASSWORD = /^proxy console password: (\S+) \(shown once/;

async function post(base: string, path: string, body: unknown, cookie = "") {
  const r = await fetch(`${base}/api/v1${path}`, {
    method: "POST",
    headers: { origin: base, "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  return { status: r.status, cookie: (r.headers.get("set-cookie") ?? "").split(";")[0] };
}

async function signedIn(base: string, cookie: string): Promise<boolean> {
  const r = await fetch(`${base}/api/v1/settings`, { headers: { cookie } });
  return r.status === 200;
}

describe("npm run serve -- --reset-proxy-password", () => {
  it("gives the console a new password, printed once, and signs out every session", async () => {
    const args = await proxyArgs();
    const first = serve(args);
    const base1 = (await first.waitFor(LISTENING))[1];
    const token = (await first.waitFor(/^proxy setup token: (\S+)$/))[1];
    const old = "an old forgotten password";
    const setup = await post(base1, "/auth/setup", { token, password: old });
    expect(setup.status).toBe(200);
    expect(await signedIn(base1, setup.cookie)).toBe(true);
    // Guessing locks this address out of signing in...
    for (let i = 0; i < 5; i++)
      expect((await post(base1, "/auth/login", { password: `guess ${i} wrong` })).status).toBe(401);
    expect((await post(base1, "/auth/login", { password: old })).status).toBe(429);
    expect(await first.stop()).toBe(0);

    const reset = serve([...args, "--reset-proxy-password"]);
    const base = (await reset.waitFor(LISTENING))[1];
    const fresh = (await reset.waitFor(NEW_PASSWORD))[1];
    expect(Buffer.byteLength(fresh)).toBeGreaterThanOrEqual(12);
    expect(reset.lines.filter((l) => NEW_PASSWORD.test(l))).toHaveLength(1);
    // The session opened with the old password is gone; the old password no longer works.
    expect(await signedIn(base, setup.cookie)).toBe(false);
    expect((await post(base, "/auth/login", { password: old })).status).toBe(401);
    // ...and the reset lifts that, so the new password works at once.
    const login = await post(base, "/auth/login", { password: fresh });
    expect(login.status).toBe(200);
    expect(await signedIn(base, login.cookie)).toBe(true);
    // The log says it happened, and never the password.
    expect(reset.stderr()).toMatch(/proxy console password was reset/);
    expect(reset.stderr()).not.toContain(fresh);
    expect(await reset.stop()).toBe(0);

    // The next start without the option keeps the new password and prints none.
    const again = serve(args);
    const base3 = (await again.waitFor(LISTENING))[1];
    expect((await post(base3, "/auth/login", { password: fresh })).status).toBe(200);
    expect(again.lines.some((l) => NEW_PASSWORD.test(l))).toBe(false);
    expect(await again.stop()).toBe(0);
  });

  it("before the console is set up, prints the setup token and no password", async () => {
    const s = serve([...(await proxyArgs()), "--reset-proxy-password"]);
    await s.waitFor(LISTENING);
    await s.waitFor(/^proxy setup token: \S+$/);
    expect(s.lines.some((l) => NEW_PASSWORD.test(l))).toBe(false);
    expect(await s.stop()).toBe(0);
  });
});
