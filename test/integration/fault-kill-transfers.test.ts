import http from "node:http";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkParcelStore } from "../helpers/fault-invariants.js";
import { holdWriteLock, openReadOnly } from "../helpers/raw-db.js";
import { AuditRepo } from "../../server/parcel/repos/audit.js";
import { ParcelsRepo } from "../../server/parcel/repos/parcels.js";
import { requestConsumed } from "../helpers/fault-net.js";
import {
  bearer,
  createUpload,
  MiB,
  ownerView,
  partialPut,
  publishedParcel,
  putFile,
  recipient,
  sha256,
  stalledDownload,
  tempFiles,
} from "../helpers/fault-parcel.js";
import {
  Client,
  parcelAdmin,
  startService,
  until,
  type ServiceProcess,
  FAULT_TEST_TIMEOUT_MS,
} from "../helpers/fault-service.js";

// Each test starts the real service several times: a busy machine needs more than 30 s.
vi.setConfig({ testTimeout: FAULT_TEST_TIMEOUT_MS });

/**
 * SIGKILL of the real headless parcel service at a chosen moment of a transfer, then a restart
 * on the same data dir and a check of what must survive any crash.
 */
const running: ServiceProcess[] = [];
const dirs: string[] = [];

async function start(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ svc: ServiceProcess; url: string }> {
  const svc = await startService({ dataDir, only: "parcel", env });
  running.push(svc);
  return { svc, url: svc.parcelUrl as string };
}

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), "gh-fault-"));
  dirs.push(d);
  return d;
}

/** A row of the parcel table, read behind the service's back. */
function parcelRow(dir: string, id: string) {
  const db = openReadOnly(join(dir, "parcel", "parcel.db"));
  try {
    const row = new ParcelsRepo(db).byId(id);
    if (!row) throw new Error(`no parcel ${id}`);
    return row;
  } finally {
    db.close();
  }
}

/** The download audit records, oldest first, read behind the service's back. */
function auditActions(dir: string): string[] {
  const db = openReadOnly(join(dir, "parcel", "parcel.db"));
  try {
    const audit = new AuditRepo(db);
    const page = { page: 1, pageSize: 1000 };
    return ["download.start", "download.complete"]
      .flatMap((action) => audit.page({ action }, page).items)
      .sort((a, b) => a.id - b.id)
      .map((r) => r.action);
  } finally {
    db.close();
  }
}

/** Stops the service (SIGTERM) and asserts the store's invariants and an empty temp dir. */
async function stopAndCheck(svc: ServiceProcess, dir: string) {
  expect(await svc.stop()).toBe(0);
  const report = checkParcelStore(dir, { hashContent: true });
  expect(report.problems).toEqual([]);
  expect(report.temp).toEqual([]);
  return report;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.kill()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("SIGKILL during transfers, then restart", () => {
  it("kills half-way through a PUT body: the session is revoked, its partial data and its reservation are gone", async () => {
    const dir = dataDir();
    let { svc, url } = await start(dir);
    const admin = await parcelAdmin(url);
    // A second session of the same size fits the data budget only once the first one's
    // reservation is released; free disk plays no part.
    await admin.expect(200, "PUT", "/api/v1/admin/runtime", {
      body: { data_budget_bytes: 5 * MiB, disk_headroom_bytes: 0 },
    });
    const owner = new Client(url);
    const up = await createUpload(owner, { "first.bin": MiB, "second.bin": 2 * MiB });
    const first = randomBytes(MiB);
    expect((await putFile(owner, up, 0, first)).status).toBe(200);
    const again = { files: [{ name: "next.bin", size: 3 * MiB }] };
    expect((await owner.request("POST", "/api/v1/uploads", { body: again })).status).toBe(507);

    const put = partialPut(owner, up, 1, randomBytes(2 * MiB), MiB);
    const part = () => tempFiles(dir).find((f) => f.name.startsWith(`${up.files[1].id}.`));
    await until(() => part()?.size === MiB, "the service wrote half of the body");
    await svc.kill();
    await put.closed;
    // The kill landed mid-transfer: partial bytes on disk, the session still open.
    expect(part()?.size).toBe(MiB);
    expect(parcelRow(dir, up.id)).toMatchObject({ state: "uploading", reserved_bytes: 2 * MiB });

    ({ svc, url } = await start(dir));
    expect(tempFiles(dir)).toEqual([]);
    const owner2 = new Client(url);
    const view = await ownerView(owner2, up);
    expect(view.state).toBe("revoked");
    expect(view.files.map((f) => f.state)).toEqual(["ready", "pending"]);
    // Nothing more goes into the revoked session, and its reservation no longer counts.
    expect((await putFile(owner2, up, 1, randomBytes(2 * MiB))).status).toBe(409);
    await owner2.expect(201, "POST", "/api/v1/uploads", { body: again });
    await stopAndCheck(svc, dir);

    // A full cleanup afterwards leaves none of the killed session's bytes.
    ({ svc, url } = await start(dir));
    const admin2 = await parcelAdmin(url);
    await admin2.expect(200, "POST", "/api/v1/admin/cleanup");
    const report = await stopAndCheck(svc, dir);
    expect(report.blobFiles).toBe(0);
    expect(report.reclaimable).toEqual([]);
  });

  it("kills while a recipient is half-way through a download: the download stays spent, once, and the rest still work", async () => {
    const dir = dataDir();
    // The download stops for good once its first piece is written; the kill comes then.
    const mid = "parcel.download-mid-body";
    let { svc, url } = await start(dir, { GATEHOUSE_FAULT: `${mid}:pause` });
    const owner = new Client(url);
    const { up, bodies, code } = await publishedParcel(
      owner,
      { "big.bin": 4 * MiB },
      { downloads: 2 },
    );
    const reader = await recipient(url, code);
    const dl = await stalledDownload(reader, up.files[0].id, 1);
    await svc.reached(mid);
    expect(dl.status).toBe(200);
    expect(dl.read).toBeGreaterThan(0);
    expect(dl.read).toBeLessThan(4 * MiB);
    await svc.kill();
    dl.drop();
    expect(parcelRow(dir, up.id)).toMatchObject({ state: "published", downloads_left: 1 });
    // The kill landed mid-body: the service had started the download and not finished it.
    expect(auditActions(dir)).toEqual(["download.start"]);

    ({ svc, url } = await start(dir));
    const owner2 = new Client(url);
    // Cut short after bytes were sent: counted, and not returned by the restart.
    expect((await ownerView(owner2, up)).downloads_left).toBe(1);
    const reader2 = await recipient(url, code);
    const full = await reader2.request("GET", `/api/v1/pickup/files/${up.files[0].id}/download`);
    expect(full.status).toBe(200);
    expect(sha256(full.body)).toBe(sha256(bodies[0]));
    const view = await ownerView(owner2, up);
    expect(view).toMatchObject({ state: "exhausted", downloads_left: 0 });
    expect(
      (await reader2.request("GET", `/api/v1/pickup/files/${up.files[0].id}/download`)).status,
    ).toBe(410);
    await stopAndCheck(svc, dir);
  });

  it("kills while a publish request is inside the service and cannot commit: the session ends revoked, not half-published", async () => {
    const dir = dataDir();
    let { svc, url } = await start(dir);
    const owner = new Client(url);
    const up = await createUpload(owner, { "doc.txt": 64 * 1024 });
    expect((await putFile(owner, up, 0, randomBytes(64 * 1024))).status).toBe(200);

    // Another connection holds the database's write lock, so the publish can read its request
    // but never commit. The kill comes once the service has read every byte of it.
    const lock = holdWriteLock(join(dir, "parcel", "parcel.db"));
    let answered = false;
    let clientPort = 0;
    const req = http.request({
      host: "127.0.0.1",
      port: owner.port,
      method: "POST",
      path: `/api/v1/uploads/${up.id}/publish`,
      headers: { host: `127.0.0.1:${owner.port}`, origin: owner.origin, ...bearer(up) },
      agent: false,
    });
    req.on("response", () => (answered = true));
    req.on("error", () => undefined);
    req.on("socket", (s) => s.on("connect", () => (clientPort = s.localPort ?? 0)));
    req.end();
    await until(
      () => clientPort > 0 && requestConsumed(owner.port, clientPort),
      "the service read the publish request",
    );
    await svc.kill();
    lock.release();
    expect(answered).toBe(false);

    ({ svc, url } = await start(dir));
    const owner2 = new Client(url);
    const view = await ownerView(owner2, up);
    expect(view).toMatchObject({ state: "revoked", sent_at: null });
    expect(
      (
        await owner2.request("POST", `/api/v1/uploads/${up.id}/publish`, {
          headers: bearer(up),
        })
      ).status,
    ).toBe(409);

    // A publish that answered survives a kill right after it: the code works after restart.
    const done = await publishedParcel(owner2, { "kept.txt": 1000 });
    await svc.kill();
    ({ svc, url } = await start(dir));
    const reader = await recipient(url, done.code);
    const got = await reader.request("GET", `/api/v1/pickup/files/${done.up.files[0].id}/download`);
    expect(sha256(got.body)).toBe(sha256(done.bodies[0]));
    await stopAndCheck(svc, dir);
  });
});
