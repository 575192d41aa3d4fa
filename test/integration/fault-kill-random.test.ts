import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkParcelStore } from "../helpers/fault-invariants.js";
import { bearer, createUpload, putFile, recipient } from "../helpers/fault-parcel.js";
import {
  Client,
  parcelAdmin,
  startService,
  type ServiceProcess,
  FAULT_TEST_TIMEOUT_MS,
} from "../helpers/fault-service.js";

// Each test starts the real service several times: a busy machine needs more than 30 s.
vi.setConfig({ testTimeout: FAULT_TEST_TIMEOUT_MS });

/**
 * The targeted kill tests pick their moment; this one does not. Four clients upload (some of
 * them identical content, so blobs are shared), publish, download, revoke and clean up while
 * the service is killed after a random number of finished uploads. Whatever moment the kill
 * hits, the restarted service must leave a whole store.
 */
const ROUNDS = 4;
let dir = "";
let svc: ServiceProcess | null = null;

afterEach(async () => {
  await svc?.kill();
  svc = null;
  rmSync(dir, { recursive: true, force: true });
});

async function workload(url: string, killAfter: number, kill: () => void): Promise<void> {
  const admin = await parcelAdmin(url);
  const shared = randomBytes(32 * 1024);
  let uploaded = 0;
  let stopped = false;
  const client = async (n: number) => {
    const owner = new Client(url);
    while (!stopped) {
      try {
        const up = await createUpload(owner, { "a.bin": 32 * 1024, "b.bin": 64 * 1024 });
        await putFile(owner, up, 0, n % 2 === 0 ? shared : randomBytes(32 * 1024));
        if (++uploaded === killAfter) {
          stopped = true;
          kill();
        }
        await putFile(owner, up, 1, randomBytes(64 * 1024));
        const { code } = await owner.expect<{ code: string }>(
          200,
          "POST",
          `/api/v1/uploads/${up.id}/publish`,
          { headers: bearer(up) },
        );
        const reader = await recipient(url, code);
        await reader.request("GET", `/api/v1/pickup/files/${up.files[0].id}/download`);
        if (n === 1)
          await owner.request("POST", `/api/v1/parcels/${up.id}/revoke`, {
            headers: bearer(up),
          });
        if (n === 2) await admin.request("POST", "/api/v1/admin/cleanup");
      } catch {
        // Requests cut by the kill.
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(client));
}

describe("SIGKILL at a random moment of a mixed workload, then restart", () => {
  it(`leaves a whole store after each of ${ROUNDS} kills`, async () => {
    dir = mkdtempSync(join(tmpdir(), "gh-fault-"));
    for (let round = 0; round < ROUNDS; round++) {
      svc = await startService({ dataDir: dir, only: "parcel" });
      const running = svc;
      await workload(running.parcelUrl as string, randomInt(2, 16), () => {
        void running.kill();
      });
      await running.kill();
      svc = await startService({ dataDir: dir, only: "parcel" });
      expect(await svc.stop()).toBe(0);
      const report = checkParcelStore(dir, { hashContent: true });
      expect({ round, problems: report.problems, temp: report.temp }).toEqual({
        round,
        problems: [],
        temp: [],
      });
    }
  });
});
