import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  buildServerIfChanged,
  SERVE_DIR,
  SERVE_ENTRY,
} from "../../scripts/build-server-if-changed.js";
import { freePort } from "./proxy-core-harness.js";

const ROOT = resolve(import.meta.dirname, "../..");
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }
).version;

/** Starts the compiled headless entry, as `npm run serve` does after its build check. */
function serveCompiled(args: string[]) {
  const proc = spawn(process.execPath, [join(ROOT, SERVE_ENTRY), ...args], {
    cwd: tmpdir(),
    env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: "compiled-password-1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((r) => proc.on("exit", (code) => r(code)));
  const waitFor = async (re: RegExp): Promise<string> => {
    for (let i = 0; i < 300; i++) {
      const m = re.exec(out);
      if (m) return m[1];
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no line matching ${re}; got:\n${out}`);
  };
  return { proc, exited, waitFor };
}

describe("npm run serve runs the services compiled to dist/serve", () => {
  it("compiles only when a source changed, and the compiled services answer like the sources", async () => {
    await buildServerIfChanged(ROOT);
    expect(existsSync(join(ROOT, SERVE_ENTRY))).toBe(true);
    // Nothing changed: no second compile, even for a source whose time alone changed.
    const touched = join(ROOT, "server", "clock.ts");
    const now = new Date();
    utimesSync(touched, now, now);
    expect(await buildServerIfChanged(ROOT)).toBe(false);
    // Files the code finds beside itself are there: migrations and the worker entries.
    expect(existsSync(join(ROOT, SERVE_DIR, "server", "parcel", "migrations"))).toBe(true);
    expect(
      existsSync(join(ROOT, SERVE_DIR, "server", "proxy", "subscriptions", "parse-worker.js")),
    ).toBe(true);

    const dataDir = mkdtempSync(join(tmpdir(), "gh-serve-compiled-"));
    const run = serveCompiled([
      "--host",
      "127.0.0.1",
      "--parcel-port",
      "0",
      "--proxy-port",
      "0",
      "--core-controller-port",
      String(await freePort()),
      "--data-dir",
      dataDir,
    ]);
    try {
      const parcel = await run.waitFor(/parcel service listening on (\S+)/);
      const proxy = await run.waitFor(/proxy service listening on (\S+)/);
      const health = (await (await fetch(`${parcel}/api/v1/health`)).json()) as {
        version: string;
      };
      expect(health.version).toBe(VERSION);
      // Lazily loaded modules load from the compiled tree too.
      const doc = await fetch(`${proxy}/api/v1/openapi.json`);
      expect(doc.status).toBe(200);
      expect(((await doc.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
      expect((await fetch(`${proxy}/api/v1/auth/status`)).status).toBe(200);
    } finally {
      run.proc.kill("SIGTERM");
    }
    expect(await run.exited).toBe(0);
  });

  it("reads subscriptions in the compiled worker thread", async () => {
    await buildServerIfChanged(ROOT);
    const url = pathToFileURL(
      join(ROOT, SERVE_DIR, "server", "proxy", "subscriptions", "parse-pool.js"),
    ).href;
    const { ParsePool } = (await import(
      url
    )) as typeof import("../../server/proxy/subscriptions/parse-pool.js");
    const pool = new ParsePool();
    try {
      const parsed = await pool.parse(
        "proxies:\n  - {name: a, type: ss, server: s.example.net, port: 8388, cipher: aes-128-gcm, password: p}\n",
      );
      expect(parsed.nodes.map((n) => n.name)).toEqual(["a"]);
    } finally {
      await pool.close();
    }
  });
});
