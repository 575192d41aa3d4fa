import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { blobFilesOnDisk, checkParcelStore } from "../helpers/fault-invariants.js";
import { countRows, openReadOnly } from "../helpers/raw-db.js";
import { ParcelsRepo } from "../../server/parcel/repos/parcels.js";
import {
  createUpload,
  MiB,
  publishedParcel,
  recipient,
  sha256,
  type Upload,
} from "../helpers/fault-parcel.js";
import { seedEndedParcels } from "../helpers/fault-seed.js";
import { CLEANUP_BATCH } from "../../server/parcel/repos/cleanup.js";
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
 * SIGKILL of the real headless parcel service while `POST /admin/cleanup` works through
 * thousands of ended parcels, then a restart on the same data dir: the store must be whole,
 * the live parcels untouched, and the next cleanup must finish the job.
 */
const ENDED = 6000;
const running: ServiceProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.kill()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ svc: ServiceProcess; url: string }> {
  const svc = await startService({ dataDir, only: "parcel", env });
  running.push(svc);
  return { svc, url: svc.parcelUrl as string };
}

interface Live {
  up: Upload;
  bodies: Buffer[];
  code: string;
}

/**
 * A data dir with two live parcels (uploaded through the service) and `ENDED` ended ones
 * (written into the stopped store), some of which share the live parcels' blobs.
 */
async function storeWithEndedParcels(): Promise<{ dir: string; live: Live[] }> {
  const dir = mkdtempSync(join(tmpdir(), "gh-fault-"));
  dirs.push(dir);
  const { svc, url } = await start(dir);
  const owner = new Client(url);
  const live = [
    await publishedParcel(owner, { "a.bin": 300 * 1024 }, { downloads: 5 }),
    await publishedParcel(owner, { "b.bin": 200 * 1024 }, { downloads: 5 }),
  ];
  expect(await svc.stop()).toBe(0);
  seedEndedParcels(
    dir,
    ENDED,
    live.map((l) => ({ sha256: sha256(l.bodies[0]), size: l.bodies[0].length })),
  );
  return { dir, live };
}

interface Counts {
  parcels: number;
  blobRows: number;
}

/** What the store holds, read behind the service's back. */
function counts(dir: string): Counts {
  const db = openReadOnly(join(dir, "parcel", "parcel.db"));
  try {
    return {
      parcels: countRows(db, "parcels"),
      blobRows: countRows(db, "blobs"),
    };
  } finally {
    db.close();
  }
}

/**
 * Starts a full cleanup on a service started with `<point>@<n>:pause` armed, waits until the
 * cleanup stopped there (after its n-th batch), and answers the store's counts at that moment.
 * The caller then kills the service.
 */
async function pausedCleanup(
  svc: ServiceProcess,
  url: string,
  dir: string,
  point: string,
): Promise<Counts> {
  const admin = await parcelAdmin(url);
  let answered = false;
  admin.request("POST", "/api/v1/admin/cleanup").then(
    () => (answered = true),
    () => undefined,
  );
  await svc.reached(point);
  expect(answered).toBe(false);
  return counts(dir);
}

/** After the restart: invariants hold, live parcels download intact, cleanup completes. */
async function checkRecovered(dir: string, live: Live[]) {
  const { svc, url } = await start(dir);
  for (const l of live) {
    const reader = await recipient(url, l.code);
    const r = await reader.request("GET", `/api/v1/pickup/files/${l.up.files[0].id}/download`);
    expect(r.status).toBe(200);
    expect(sha256(r.body)).toBe(sha256(l.bodies[0]));
  }
  const admin = await parcelAdmin(url);
  await admin.expect(200, "POST", "/api/v1/admin/cleanup");
  expect(await svc.stop()).toBe(0);
  const report = checkParcelStore(dir);
  expect(report.problems).toEqual([]);
  expect(report.temp).toEqual([]);
  expect(report.reclaimable).toEqual([]);
  // Only the live parcels and their two blobs are left.
  expect(report.blobRows).toBe(2);
  expect(report.blobFiles).toBe(2);
  const db = openReadOnly(join(dir, "parcel", "parcel.db"));
  expect(countRows(db, "parcels")).toBe(2);
  db.close();
}

describe("SIGKILL during cleanup, then restart", () => {
  it("kills while cleanup deletes ended records: nothing live is lost and the next cleanup finishes", async () => {
    const { dir, live } = await storeWithEndedParcels();
    const point = "parcel.cleanup-records";
    const { svc, url } = await start(dir, { GATEHOUSE_FAULT: `${point}@3:pause` });
    const total = ENDED + live.length;
    expect(counts(dir).parcels).toBe(total);
    const at = await pausedCleanup(svc, url, dir, point);
    // Stopped after three batches of ended records: those are gone, the rest still there.
    expect(at.parcels).toBe(total - 3 * CLEANUP_BATCH);
    await svc.kill();
    const report = checkParcelStore(dir);
    expect(report.problems).toEqual([]);
    await checkRecovered(dir, live);
  });

  it("kills while cleanup deletes unreferenced blobs: no bytes without a row, none missing", async () => {
    const { dir, live } = await storeWithEndedParcels();
    const blobs = blobFilesOnDisk(dir).size;
    expect(counts(dir).blobRows).toBe(blobs);
    // Half-way through the blobs: stopped after that many batches of deletions.
    const half = Math.floor(blobs / 2 / CLEANUP_BATCH);
    const point = "parcel.cleanup-blobs";
    const { svc, url } = await start(dir, { GATEHOUSE_FAULT: `${point}@${half}:pause` });
    const at = await pausedCleanup(svc, url, dir, point);
    expect(at.parcels).toBe(live.length);
    expect(at.blobRows).toBe(blobs - half * CLEANUP_BATCH);
    expect(blobFilesOnDisk(dir).size).toBe(at.blobRows);
    await svc.kill();
    await checkRecovered(dir, live);
  });

  it("removes at start what a crash can leave between two steps: bytes whose row is gone, partial uploads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gh-fault-"));
    dirs.push(dir);
    let { svc, url } = await start(dir);
    const owner = new Client(url);
    const kept = await publishedParcel(owner, { "kept.bin": 100 * 1024 });
    const open: Upload = await createUpload(owner, { "open.bin": MiB });
    await svc.kill();

    // What a kill leaves when it lands between a blob's row and its bytes (the row deleted by
    // reclamation, or the bytes linked into place by an upload before its row was written),
    // and a temporary file an upload was writing.
    const orphan = randomBytes(5000);
    const sha = sha256(orphan);
    mkdirSync(join(dir, "parcel", "blobs", sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(dir, "parcel", "blobs", sha.slice(0, 2), sha), orphan);
    writeFileSync(join(dir, "parcel", "tmp", `${open.files[0].id}.abc123.part`), orphan);
    const before = checkParcelStore(dir);
    expect(before.problems).toEqual([`blob file without a blobs row: ${sha.slice(0, 2)}/${sha}`]);
    expect(before.temp).toHaveLength(1);

    ({ svc, url } = await start(dir));
    const reader = await recipient(url, kept.code);
    const r = await reader.request("GET", `/api/v1/pickup/files/${kept.up.files[0].id}/download`);
    expect(sha256(r.body)).toBe(sha256(kept.bodies[0]));
    expect(await svc.stop()).toBe(0);
    const after = checkParcelStore(dir, { hashContent: true });
    expect(after.problems).toEqual([]);
    expect(after.temp).toEqual([]);
    expect(after.blobFiles).toBe(1);
    const db = openReadOnly(join(dir, "parcel", "parcel.db"));
    expect(new ParcelsRepo(db).byId(open.id)?.state).toBe("revoked");
    db.close();
  });
});
