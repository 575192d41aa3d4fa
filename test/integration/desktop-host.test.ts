import { afterEach, describe, expect, it, vi } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  drive,
  isReady,
  request,
  serviceArgs,
  tempDir,
  type Driven,
} from "./desktop-host-support.js";

/**
 * The desktop app's service host against the real services entry (server/desktop-entry.ts
^ * compiled, or under tsx) in real child processes, on port 0 with temporary data dirs.
 */

const running: Driven[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((d) => d.host.stop()));
});

/** The longest back-off the host could wait before a restart with the options these tests use. */
const BACKOFF_LIMIT_MS = 30_000;

/**
 * Timers that run with the clock (so the child's messages and the waits still arrive) but can
 * be run ahead: a restart the host scheduled would happen at once instead of after a pause.
 */
function fakeTimers(): void {
  vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout", "Date"] });
}

/** Runs every timer due within `ms` now: a restart that was scheduled starts a new process. */
async function noRestartWithin(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

function start(options: Parameters<typeof drive>[0]): Driven {
  const d = drive(options);
  running.push(d);
  d.host.start();
  return d;
}

describe("the service host with the real services", () => {
  it("hears ready with the URLs, the entries and a generated admin password that signs in, and stops in under 2 s", async () => {
    const dataDir = tempDir();
    const d = start({ dataDir });
    const ready = await d.waitStatus(isReady, 20_000, 0);
    const { parcel, proxy } = ready.info;
    expect(ready.info.dataDir).toBe(dataDir);
    expect(parcel?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = new URL(parcel!.url).port;
    expect(parcel?.entries).toEqual([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
    expect(parcel?.httpsUrl).toBeNull();
    expect(parcel?.adminUser).toBe("admin");
    expect(parcel?.generatedAdminPassword).toMatch(/^[\w-]{16}$/);
    expect(proxy?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(proxy?.setupToken).toEqual(expect.any(String));
    // The public snapshot carries the addresses but never a credential.
    expect(JSON.stringify(d.host.info)).not.toContain(parcel!.generatedAdminPassword!);
    expect(JSON.stringify(d.host.info)).not.toContain(proxy!.setupToken!);
    expect(d.host.info.parcel?.url).toBe(parcel!.url);

    const login = await request(parcel!.url, "POST", "/api/v1/admin/login", {
      body: { username: "admin", password: parcel!.generatedAdminPassword },
    });
    expect(login.status).toBe(200);
    const wrong = await request(parcel!.url, "POST", "/api/v1/admin/login", {
      body: { username: "admin", password: "not-the-password" },
    });
    expect(wrong.status).toBe(401);

    // The core's state arrives as a status message (no core is installed here).
    const withCore = await d.waitFor(() => d.infos.find((i) => i.core !== null));
    expect(withCore.core?.installed).toBe(false);

    const child = d.children[0];
    const t0 = performance.now();
    await d.host.stop();
    const ms = performance.now() - t0;
    console.log(`desktop host: stop took ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(2000);
    expect(d.host.state).toEqual({ state: "stopped" });
    // It stopped by itself on the stop message (no kill was needed).
    expect(d.lines.join("\n")).not.toMatch(/killing/);
    expect(child.pid).toBeDefined();
    expect(() => process.kill(child.pid!, 0)).toThrow();
    await expect(fetch(`${parcel!.url}/api/v1/health`)).rejects.toThrow();
  });

  it("restarts a killed services process with back-off and hears ready again", async () => {
    const dataDir = tempDir();
    const d = start({ dataDir, backoffMs: 150, maxBackoffMs: 1000 });
    const first = await d.waitStatus(isReady, 20_000, 0);
    const pid = d.host.pid!;
    const at = d.statuses.length;
    process.kill(pid, "SIGKILL");
    const restarting = await d.waitStatus((s) => s.state === "restarting", 5000, at);
    expect(restarting).toMatchObject({ state: "restarting", attempt: 1, delayMs: 150 });
    expect(restarting.state === "restarting" && restarting.reason).toMatch(/SIGKILL/);
    expect(d.host.info.error).toMatch(/stopped unexpectedly/);
    const again = await d.waitStatus(isReady, 20_000, at);
    expect(d.host.pid).not.toBe(pid);
    // Same data dir: the administrator exists, so no new password is handed out.
    expect(again.info.parcel?.generatedAdminPassword).toBeNull();
    const login = await request(again.info.parcel!.url, "POST", "/api/v1/admin/login", {
      body: { username: "admin", password: first.info.parcel!.generatedAdminPassword },
    });
    expect(login.status).toBe(200);

    // A second quick crash waits twice as long.
    const at2 = d.statuses.length;
    process.kill(d.host.pid!, "SIGKILL");
    const second = await d.waitStatus((s) => s.state === "restarting", 5000, at2);
    expect(second).toMatchObject({ attempt: 2, delayMs: 300 });
    await d.waitStatus(isReady, 20_000, at2);
  });

  it("gives up after the allowed quick restarts and says so", async () => {
    const d = start({ dataDir: tempDir(), backoffMs: 50, maxRestarts: 1 });
    await d.waitStatus(isReady, 20_000, 0);
    process.kill(d.host.pid!, "SIGKILL");
    const at = d.statuses.length;
    await d.waitStatus(isReady, 20_000, at);
    process.kill(d.host.pid!, "SIGKILL");
    const failed = await d.waitStatus((s) => s.state === "failed", 5000, at);
    expect(failed).toMatchObject({ state: "failed", code: "crashed" });
    expect(failed.state === "failed" && failed.message).toMatch(/restarted 1 times/);
    expect(d.host.info).toMatchObject({ state: "failed", errorCode: "crashed", parcel: null });
  });

  it.each([
    ["a file where the data folder should be", () => writeFile()],
    ["a folder under /proc", () => "/proc/gatehouse-desktop-test/data"],
  ])(
    "reports a bad data dir (%s) with a code and a sentence, and does not restart",
    async (_what, dir) => {
      const dataDir = dir();
      fakeTimers();
      const d = start({ dataDir, backoffMs: 50 });
      const failed = await d.waitStatus((s) => s.state === "failed", 20_000, 0);
      expect(failed).toMatchObject({ state: "failed", code: "data_dir" });
      const message = failed.state === "failed" ? failed.message : "";
      expect(message).toContain(dataDir);
      expect(message).toMatch(/^Gatehouse cannot use its data folder .+\. Choose another folder/);
      await noRestartWithin(BACKOFF_LIMIT_MS);
      expect(d.statuses.map((s) => s.state)).toEqual(["starting", "failed"]);
      expect(d.children).toHaveLength(1);
    },
  );

  it("reports a port another program holds as port_in_use, without a restart loop", async () => {
    const blocker = http.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const dataDir = tempDir();
      fakeTimers();
      const d = start({
        dataDir,
        backoffMs: 50,
        args: serviceArgs(dataDir, ["--parcel-port", String(port)]),
      });
      const failed = await d.waitStatus((s) => s.state === "failed", 20_000, 0);
      expect(failed).toMatchObject({ state: "failed", code: "port_in_use" });
      expect(failed.state === "failed" && failed.message).toBe(
        `Port ${port} is already used by another program. Close that program or choose another port in the settings.`,
      );
      await noRestartWithin(BACKOFF_LIMIT_MS);
      expect(d.statuses.map((s) => s.state)).toEqual(["starting", "failed"]);
      expect(d.children).toHaveLength(1);
    } finally {
      blocker.close();
    }
  });
});

function writeFile(): string {
  const file = join(tempDir(), "not-a-folder");
  writeFileSync(file, "x");
  return file;
}
