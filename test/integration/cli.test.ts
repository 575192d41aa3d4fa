import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import http from "node:http";
import { freePort } from "../helpers/free-ports.js";
import { serviceEntryArgs } from "../helpers/service-entry.js";

/** Runs the headless service as `npm run serve` does (compiled), as a real child process. */
function serve(args: string[], env: NodeJS.ProcessEnv = {}) {
  const proc = spawn(process.execPath, [...serviceEntryArgs(), ...args], {
    env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let err = "";
  proc.stdout.on("data", (b: Buffer) => lines.push(...b.toString().split("\n").filter(Boolean)));
  proc.stderr.on("data", (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  // Every line the process printed has been read once its output streams closed.
  const closed = new Promise<void>((resolve) => proc.on("close", () => resolve()));
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
  return { proc, lines, exited, closed, waitFor, stderr: () => err };
}

function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: host ? { host } : {} }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
  });
}

async function adminLogin(base: string, password: string): Promise<number> {
  const r = await fetch(`${base}/api/v1/admin/login`, {
    method: "POST",
    headers: { origin: base, "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  return r.status;
}

async function resolveCode(base: string, code: string): Promise<number> {
  const r = await fetch(`${base}/api/v1/pickup/resolve`, {
    method: "POST",
    headers: { origin: base, "content-type": "application/json" },
    body: JSON.stringify({ code }),
  });
  return r.status;
}

const LISTENING = /^parcel service listening on (\S+)$/;
const NEW_PASSWORD = /^parcel administrator: admin \/ (\S+) /;

/** One service on loopback, on a port the OS picks, in a data dir of its own. */
function localArgs(service: "parcel" | "proxy"): string[] {
  const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-"));
  const only = [`--${service}-only`, "--host", "127.0.0.1", `--${service}-port`, "0"];
  return [...only, "--data-dir", dataDir];
}

describe("npm run serve -- --reset-admin-password", () => {
  it("gives the administrator a new password, printed once, and the old one stops working", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-"));
    const args = [
      "--parcel-only",
      "--host",
      "127.0.0.1",
      "--parcel-port",
      "0",
      "--data-dir",
      dataDir,
    ];
    const first = serve(args);
    const old = (await first.waitFor(/^parcel administrator: admin \/ (\S+) /))[1];
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const again = serve(args);
    await again.waitFor(/^parcel service listening on (\S+)$/);
    again.proc.kill("SIGTERM");
    expect(await again.exited).toBe(0);
    // All it printed, read to the end: no new password this time.
    await again.closed;
    expect(again.lines.some((l) => l.startsWith("parcel administrator:"))).toBe(false);

    const reset = serve([...args, "--reset-admin-password"]);
    const base = (await reset.waitFor(/^parcel service listening on (\S+)$/))[1];
    const fresh = (await reset.waitFor(/^parcel administrator: admin \/ (\S+) /))[1];
    expect(fresh).not.toBe(old);
    expect(await adminLogin(base, old)).toBe(401);
    expect(await adminLogin(base, fresh)).toBe(200);
    reset.proc.kill("SIGTERM");
    expect(await reset.exited).toBe(0);
  });

  it("lifts the sign-in lockout left from guessing, and only that one", async () => {
    const args = localArgs("parcel");
    const first = serve(args);
    const base1 = (await first.waitFor(LISTENING))[1];
    const old = (await first.waitFor(NEW_PASSWORD))[1];
    // Guessing locks this address out of signing in, the right password included...
    for (let i = 0; i < 5; i++) expect(await adminLogin(base1, `guess ${i} wrong`)).toBe(401);
    expect(await adminLogin(base1, old)).toBe(429);
    // ...and unknown pickup codes lock it out of pickups, which a reset must leave alone.
    for (let i = 0; i < 10; i++) expect(await resolveCode(base1, `WRONG${i}`)).toBe(404);
    expect(await resolveCode(base1, "WRONG10")).toBe(429);
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const reset = serve([...args, "--reset-admin-password"], { GATEHOUSE_LOG_LEVEL: "info" });
    const base = (await reset.waitFor(LISTENING))[1];
    const fresh = (await reset.waitFor(NEW_PASSWORD))[1];
    expect(await adminLogin(base, fresh)).toBe(200);
    expect(await resolveCode(base, "WRONG11")).toBe(429);
    // The log says it happened, and never the password.
    expect(reset.stderr()).toMatch(/parcel administrator password was reset from the command line/);
    expect(reset.stderr()).not.toContain(fresh);
    reset.proc.kill("SIGTERM");
    expect(await reset.exited).toBe(0);
  });

  it("a new GATEHOUSE_ADMIN_PASSWORD at start lifts the lockout too; the same one does not", async () => {
    const args = localArgs("parcel");
    const first = serve(args, { GATEHOUSE_ADMIN_PASSWORD: "the first password" });
    const base1 = (await first.waitFor(LISTENING))[1];
    for (let i = 0; i < 5; i++) expect(await adminLogin(base1, `guess ${i} wrong`)).toBe(401);
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    // Given again unchanged (as a service unit does on every start), it is no reset.
    const same = serve(args, { GATEHOUSE_ADMIN_PASSWORD: "the first password" });
    const base2 = (await same.waitFor(LISTENING))[1];
    expect(await adminLogin(base2, "the first password")).toBe(429);
    same.proc.kill("SIGTERM");
    expect(await same.exited).toBe(0);

    const changed = serve(args, {
      GATEHOUSE_ADMIN_PASSWORD: "a second password",
      GATEHOUSE_LOG_LEVEL: "info",
    });
    const base = (await changed.waitFor(LISTENING))[1];
    expect(await adminLogin(base, "the first password")).toBe(401);
    expect(await adminLogin(base, "a second password")).toBe(200);
    expect(changed.stderr()).toMatch(/parcel administrator password was changed/);
    expect(changed.stderr()).not.toContain("a second password");
    changed.proc.kill("SIGTERM");
    expect(await changed.exited).toBe(0);
  });
});

describe("npm run serve", () => {
  it("prints the proxy console's other addresses as 'proxy service reachable at'", async () => {
    const s = serve(localArgs("proxy"));
    const [, port] = await s.waitFor(/^proxy service listening on http:\/\/127\.0\.0\.1:(\d+)$/);
    await s.waitFor(new RegExp(`^proxy service reachable at http://localhost:${port}$`));
    expect(s.lines.filter((l) => l.includes("reachable at"))).toHaveLength(1);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  });

  it("prints every other entry address as 'parcel service reachable at'", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-"));
    // Entries name a real port, so this one is chosen: one the OS says is free.
    const port = String(await freePort());
    const s = serve([
      "--parcel-only",
      "--host",
      "127.0.0.1",
      "--parcel-port",
      port,
      "--entry",
      `http://127.0.0.1:${port}`,
      "--entry",
      `http://localhost:${port}`,
      "--data-dir",
      dataDir,
    ]);
    await s.waitFor(new RegExp(`^parcel service listening on http://127\\.0\\.0\\.1:${port}$`));
    await s.waitFor(new RegExp(`^parcel service reachable at http://localhost:${port}$`));
    expect(s.lines.filter((l) => l.includes("reachable at"))).toHaveLength(1);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  });

  it("stops cleanly (exit 0) on a SIGTERM that arrives while the services are still starting", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-"));
    const s = serve([
      "--parcel-only",
      "--host",
      "127.0.0.1",
      "--parcel-port",
      "0",
      "--data-dir",
      dataDir,
    ]);
    // The database file appears early in the parcel service's start, long before it listens.
    const db = join(dataDir, "parcel", "parcel.db");
    for (let i = 0; i < 600 && !existsSync(db); i++) await new Promise((r) => setTimeout(r, 5));
    expect(existsSync(db)).toBe(true);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  });

  it("prints the listening line with the real port, generates an administrator once, and exits 0 on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-"));
    const s = serve([
      "--parcel-only",
      "--host",
      "127.0.0.1",
      "--parcel-port",
      "0",
      "--data-dir",
      dataDir,
    ]);
    const m = await s.waitFor(/^parcel service listening on (http:\/\/127\.0\.0\.1:(\d+))$/);
    expect(Number(m[2])).toBeGreaterThan(0);
    const admin = await s.waitFor(/^parcel administrator: admin \/ (\S+) /);
    const health = await get(`${m[1]}/api/v1/health`);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true, initialized: true });
    const policy = await get(`${m[1]}/api/v1/policy`);
    expect(JSON.parse(policy.body).access_urls).toEqual([m[1], `http://localhost:${m[2]}`]);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);

    // A second start finds the administrator and prints no password.
    const again = serve([
      "--parcel-only",
      "--host",
      "127.0.0.1",
      "--parcel-port",
      "0",
      "--data-dir",
      dataDir,
    ]);
    await again.waitFor(/^parcel service listening on /);
    expect(again.lines.join("\n")).not.toContain(admin[1]);
    again.proc.kill("SIGINT");
    expect(await again.exited).toBe(0);
  });

  it("serves HTTPS with a generated certificate and prints the second line", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-"));
    const s = serve([
      "--parcel-only",
      "--host",
      "127.0.0.1",
      "--parcel-port",
      "0",
      "--parcel-https-port",
      "0",
      "--data-dir",
      dataDir,
    ]);
    await s.waitFor(/^parcel service listening on http:/);
    const m = await s.waitFor(/^parcel service listening on (https:\/\/127\.0\.0\.1:\d+)$/);
    const idx = s.lines.findIndex((l) => l.startsWith("parcel service listening on http:"));
    expect(s.lines.findIndex((l) => l.startsWith("parcel service listening on https:"))).toBe(
      idx + 1,
    );
    const https = await import("node:https");
    const body = await new Promise<string>((resolve, reject) => {
      https
        .get(`${m[1]}/api/v1/policy`, { rejectUnauthorized: false }, (res) => {
          let b = "";
          res.on("data", (c: Buffer) => (b += c.toString()));
          res.on("end", () => resolve(b));
        })
        .on("error", reject);
    });
    expect(JSON.parse(body).public_url).toBe(m[1]);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  });

  it.each([[["--parcel-port", "99999"]], [["--nope"]], [["--core-service", "x"]]])(
    "exits 2 with one line for bad options %j",
    async (args) => {
      const s = serve(args);
      expect(await s.exited).toBe(2);
      expect(s.stderr().trim().split("\n")).toHaveLength(1);
    },
  );

  it("exits 2 naming the option of a port another program holds", async () => {
    const port = await freePort();
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
    try {
      const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-"));
      const args = ["--proxy-only", "--host", "127.0.0.1", "--data-dir", dataDir];
      const s = serve([...args, "--proxy-port", String(port)]);
      expect(await s.exited).toBe(2);
      expect(s.stderr().trim()).toMatch(
        new RegExp(
          `^gatehouse: could not start: port already in use \\(.*127\\.0\\.0\\.1:${port}\\): choose another with --proxy-port, or stop the program that holds it$`,
        ),
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("exits 2 when the data dir is unusable", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "gh-cli-")), "not-a-dir");
    writeFileSync(file, "x");
    const s = serve(["--parcel-only", "--parcel-port", "0", "--data-dir", join(file, "sub")]);
    expect(await s.exited).toBe(2);
    expect(s.stderr()).toMatch(/data dir/);
  });
});
