import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  fillDisk,
  freeBytes,
  mountTmpfs,
  tmpfsUnavailable,
  unmount,
} from "../helpers/fault-disk.js";
import { checkParcelStore } from "../helpers/fault-invariants.js";
import {
  createUpload,
  MiB,
  ownerView,
  publishedParcel,
  putFile,
  recipient,
  sha256,
  tempFiles,
} from "../helpers/fault-parcel.js";
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
 * The real headless parcel service with its data dir on a 64 MiB tmpfs: admission refuses
 * before the disk fills, and a disk filled behind its back fails only the upload that hit it.
 */
const unavailable = tmpfsUnavailable();
if (unavailable) console.warn(`fault-disk-full: skipped, ${unavailable}`);

let mount = "";
let dataDir = "";
let svc: ServiceProcess | null = null;

beforeEach(() => {
  if (unavailable) return;
  mount = mountTmpfs("64m");
  dataDir = join(mount, "data");
  mkdirSync(dataDir);
});

afterEach(async () => {
  if (unavailable) return;
  try {
    await svc?.kill();
  } finally {
    svc = null;
    unmount(mount);
  }
});

async function start(): Promise<{ url: string; admin: Client }> {
  svc = await startService({ dataDir, only: "parcel" });
  const url = svc.parcelUrl as string;
  return { url, admin: await parcelAdmin(url) };
}

describe.skipIf(unavailable !== null)(
  `disk full on a 64 MiB tmpfs${unavailable ? ` (skipped: ${unavailable})` : ""}`,
  () => {
    it("answers 507 before the disk fills: declared sizes and open reservations against free disk minus the headroom", async () => {
      const { url, admin } = await start();
      const headroom = 4 * MiB;
      await admin.expect(200, "PUT", "/api/v1/admin/runtime", {
        body: { disk_headroom_bytes: headroom },
      });
      const owner = new Client(url);
      const manifest = (size: number) => ({ files: [{ name: "part.bin", size }] });

      // An open session's reservation counts although none of its bytes are written yet.
      const open = await createUpload(owner, { "big.bin": 40 * MiB });
      const refused = await owner.request("POST", "/api/v1/uploads", { body: manifest(30 * MiB) });
      expect(refused.status).toBe(507);
      expect((refused.json as { error: string }).error).toMatch(/disk space/);
      await owner.expect(200, "POST", `/api/v1/parcels/${open.id}/revoke`, {
        headers: { authorization: `Bearer ${open.manage_token}` },
      });

      // Fill it with real parcels until admission says no; no write ever runs out of space.
      let stored = 0;
      for (;;) {
        const r = await owner.request("POST", "/api/v1/uploads", { body: manifest(8 * MiB) });
        if (r.status === 507) break;
        expect(r.status).toBe(201);
        const up = r.json as Awaited<ReturnType<typeof createUpload>>;
        expect((await putFile(owner, up, 0, randomBytes(8 * MiB))).status).toBe(200);
        stored++;
        expect(stored).toBeLessThan(8);
      }
      const free = freeBytes(dataDir);
      expect(stored).toBeGreaterThanOrEqual(4);
      // Refused because it would not fit above the headroom, while the headroom is still free.
      expect(free - headroom).toBeLessThan(8 * MiB);
      expect(free).toBeGreaterThanOrEqual(headroom);
      expect((await owner.request("GET", "/api/v1/health")).status).toBe(200);
      await admin.expect(200, "GET", "/api/v1/admin/stats");
    });

    it("fails only the upload that meets a full disk, keeps serving, and takes the same file once space is free", async () => {
      const { url, admin } = await start();
      await admin.expect(200, "PUT", "/api/v1/admin/runtime", { body: { disk_headroom_bytes: 0 } });
      const owner = new Client(url);
      const existing = await publishedParcel(owner, { "existing.bin": 256 * 1024 });
      const up = await createUpload(owner, { "large.bin": 12 * MiB });
      const body = randomBytes(12 * MiB);

      // Admitted; then something else fills the disk behind the service's back.
      const filler = fillDisk(mount, 2 * MiB);
      const failed = await putFile(owner, up, 0, body);
      expect(failed.status).toBe(507);
      expect((failed.json as { error: string }).error).toMatch(/not enough free disk space/);
      expect(tempFiles(dataDir)).toEqual([]);
      expect((await ownerView(owner, up)).files.map((f) => f.state)).toEqual(["failed"]);

      // Everything else keeps working on the full disk.
      expect((await owner.request("GET", "/api/v1/health")).status).toBe(200);
      const reader = await recipient(url, existing.code);
      const got = await reader.request(
        "GET",
        `/api/v1/pickup/files/${existing.up.files[0].id}/download`,
      );
      expect(got.status).toBe(200);
      expect(sha256(got.body)).toBe(sha256(existing.bodies[0]));
      const more = await owner.request("POST", "/api/v1/uploads", {
        body: { files: [{ name: "more.bin", size: 8 * MiB }] },
      });
      expect(more.status).toBe(507);

      // Not one byte left (even the database cannot grow): requests that must write fail,
      // none ends the process, and /health still answers.
      const last = fillDisk(mount, 0);
      expect(freeBytes(mount)).toBe(0);
      const pickup = await new Client(url).request("POST", "/api/v1/pickup/resolve", {
        body: { code: existing.code },
      });
      // A write the database cannot make says the disk is full (507), never a bare 500.
      expect([200, 507]).toContain(pickup.status);
      expect((await putFile(owner, up, 0, body)).status).toBe(507);
      expect((await owner.request("GET", "/api/v1/health")).status).toBe(200);
      expect(svc?.exited()).toBe(false);
      rmSync(last);

      // Space comes back: the same file, retried in full, is stored.
      rmSync(filler);
      const retried = await putFile(owner, up, 0, body);
      expect(retried.status).toBe(200);
      expect(retried.json).toMatchObject({ state: "ready", sha256: sha256(body) });
      await owner.expect(200, "POST", `/api/v1/uploads/${up.id}/publish`, {
        headers: { authorization: `Bearer ${up.manage_token}` },
      });

      expect(await svc?.stop()).toBe(0);
      const report = checkParcelStore(dataDir, { hashContent: true });
      expect(report.problems).toEqual([]);
      expect(report.temp).toEqual([]);
    });
  },
);
