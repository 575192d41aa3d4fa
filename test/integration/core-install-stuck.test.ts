import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startCoreReleaseServer, type CoreReleaseServer } from "../fixtures/core-release-server.js";
import { killAll, untilGone } from "../helpers/processes.js";
import { installService, type InstallHarness } from "./core-install-support.js";

/**
 * A new core whose `-v` never answers is ended with everything it started (its process group:
 * SIGTERM, then SIGKILL), the install fails with a sentence, the install lock is free again
 * and no process is left running. Two installs (or rollbacks) sent together: one runs, the
 * other is told another one runs, and what is installed is what the one that ran installed.
 */

let rel: CoreReleaseServer;
let dir: string;
const leftovers: number[] = [];
const services: InstallHarness[] = [];

beforeAll(async () => {
  rel = await startCoreReleaseServer();
});
afterAll(async () => rel.close());
afterEach(async () => {
  killAll(leftovers.splice(0));
  for (const s of services.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function service(versionTimeoutMs?: number): Promise<InstallHarness> {
  const s = await installService(rel.url, { versionTimeoutMs });
  services.push(s);
  return s;
}

/** The process ids the stuck core wrote: its own and its `sleep`'s. */
function pidsOf(file: string): number[] {
  const pids = JSON.parse(readFileSync(file, "utf8")) as number[];
  leftovers.push(...pids);
  return pids;
}

describe("a new core whose -v never answers", () => {
  it.each([
    ["ignores SIGTERM", "stuck-version"],
    ["sleeps", "slow-version"],
  ] as const)(
    "one that %s: 400 within the deadline, lock free, nothing left running",
    async (_how, variant) => {
      // A deadline a fake core (a Node script) meets on a busy machine, short for a test.
      const s = await service(3000);
      dir = mkdtempSync(join(tmpdir(), "gh-stuck-"));
      const pidFile = join(dir, "pids.json");
      rel.set({ tag: "v1.19.40", variant, mode: "ok", pidFile });
      const started = Date.now();
      const r = await s.install();
      expect(r.status, r.text).toBe(400);
      expect(r.json.code).toBe("install.version_mismatch");
      // 3 s deadline, 2 s between SIGTERM and SIGKILL, and the download around it.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(existsSync(pidFile)).toBe(true);
      await untilGone(pidsOf(pidFile));
      expect(await s.info()).toMatchObject({ installing: false, progress: null });
      expect(s.snapshot()).toEqual({});
      // The lock is free: the next install runs.
      rel.set({ tag: "v1.19.40", variant: "good" });
      expect((await s.install()).status).toBe(200);
    },
  );
});

describe("two at once", () => {
  it("two installs: one installs, the other is 409 install.busy", async () => {
    const s = await service();
    rel.set({ tag: "v1.19.41", variant: "good", mode: "ok" });
    const answers = await Promise.all([s.install(), s.install()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 409)?.json.code).toBe("install.busy");
    expect(await s.info()).toMatchObject({
      installing: false,
      version: "v1.19.41",
      previousVersion: null,
    });
    expect(Object.keys(s.snapshot())).toEqual(["mihomo"]);
  });

  it("two rollbacks: one trades the cores, the other is 409, the cores are traded once", async () => {
    const s = await service();
    rel.set({ tag: "v1.19.42", variant: "good", mode: "ok" });
    expect((await s.install()).status).toBe(200);
    rel.set({ tag: "v1.19.43" });
    const second = await s.install();
    expect(second.status, second.text).toBe(200);
    const answers = await Promise.all([s.rollback(), s.rollback()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(await s.info()).toMatchObject({
      installing: false,
      version: "v1.19.42",
      previousVersion: "v1.19.43",
    });
    expect(Object.keys(s.snapshot()).sort()).toEqual(["mihomo", "mihomo.previous"]);
  });
});
