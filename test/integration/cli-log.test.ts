import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serviceEntryArgs } from "../helpers/service-entry.js";

/** `server/cli.ts` as `npm run serve` runs it, with stdout and stderr kept apart. */
function serve(args: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), "gh-cli-log-"));
  const proc = spawn(
    process.execPath,
    [...serviceEntryArgs(), "--host", "127.0.0.1", "--data-dir", dataDir, ...args],
    {
      env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: "", GATEHOUSE_LOG_LEVEL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr.on("data", (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  const waitFor = async (check: () => boolean, what: string): Promise<void> => {
    for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
    if (!check()) throw new Error(`${what} did not happen; stdout:\n${out}\nstderr:\n${err}`);
  };
  return { proc, exited, waitFor, stdout: () => out, stderr: () => err };
}

function get(url: string): Promise<{ status: number; requestId: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, requestId: String(res.headers["x-request-id"]) }),
        );
      })
      .on("error", reject);
  });
}

const jsonLines = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("npm run serve logging", () => {
  it("keeps stdout to the start-up lines and writes JSON lines with request ids to stderr", async () => {
    const s = serve(["--parcel-port", "0", "--proxy-port", "0"]);
    await s.waitFor(() => s.stdout().includes("proxy setup token: "), "start-up");
    const lines = s.stdout().trim().split("\n");
    // Every other entry address is printed too ("reachable at"); the rest are the four below.
    for (const l of lines.filter((x) => x.includes(" reachable at ")))
      expect(l).toMatch(/^(parcel|proxy) service reachable at http:\/\/\S+$/);
    const out = lines.filter((x) => !x.includes(" reachable at "));
    expect(out).toHaveLength(4);
    expect(out[0]).toMatch(/^parcel service listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(out[1]).toMatch(/^parcel administrator: admin \/ \S+ /);
    expect(out[2]).toMatch(/^proxy service listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(out[3]).toMatch(/^proxy setup token: \S+$/);
    const parcelUrl = out[0].split(" ").pop() ?? "";
    const proxyUrl = out[2].split(" ").pop() ?? "";
    const password = out[1].split(" ")[4];
    const token = out[3].split(" ").pop() ?? "";

    const a = await get(`${parcelUrl}/api/v1/health?token=QUERY-SECRET`);
    const b = await get(`${proxyUrl}/api/v1/auth/status`);
    expect([a.status, b.status]).toEqual([200, 200]);
    await s.waitFor(() => s.stderr().includes(b.requestId), "the proxy request's entry");
    await s.waitFor(() => s.stderr().includes(a.requestId), "the parcel request's entry");
    const entries = jsonLines(s.stderr());
    expect(entries.find((e) => e.requestId === a.requestId)).toMatchObject({
      service: "parcel",
      msg: "request",
      route: "/api/v1/health",
      status: 200,
    });
    expect(entries.find((e) => e.requestId === b.requestId)).toMatchObject({
      service: "proxy",
      route: "/api/v1/auth/status",
    });
    for (const secret of [password, token, "QUERY-SECRET"])
      expect(s.stderr()).not.toContain(secret);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  });

  it("writes no request entries at --log-level warn", async () => {
    const s = serve(["--parcel-only", "--parcel-port", "0", "--log-level", "warn"]);
    await s.waitFor(() => s.stdout().includes("parcel administrator"), "start-up");
    const url = s.stdout().split("\n")[0].split(" ").pop() ?? "";
    const r = await get(`${url}/api/v1/health`);
    expect(r.status).toBe(200);
    // Another request after it: its answer means the first one's exchange is long over.
    await get(`${url}/api/v1/policy`);
    s.proc.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    expect(s.stderr()).not.toContain(r.requestId);
    expect(jsonLines(s.stderr()).filter((e) => e.msg === "request")).toEqual([]);
  });

  it("exits 2 with one line for an unknown log level", async () => {
    const s = serve(["--log-level", "loud"]);
    expect(await s.exited).toBe(2);
    expect(s.stderr().trim().split("\n")).toEqual([
      'gatehouse: --log-level must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
    ]);
    expect(s.stdout()).toBe("");
  });
});
