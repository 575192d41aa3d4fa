import { appendFileSync, mkdtempSync, openSync, rmSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkParcelStore } from "../helpers/fault-invariants.js";
import { openReadOnly } from "../helpers/raw-db.js";
import { ParcelsRepo } from "../../server/parcel/repos/parcels.js";
import {
  createUpload,
  publishedParcel,
  putFile,
  recipient,
  sha256,
  type Upload,
} from "../helpers/fault-parcel.js";
import {
  Client,
  parcelAdmin,
  startService,
  type ServiceProcess,
} from "../helpers/fault-service.js";

/**
 * The real headless parcel service killed (SIGKILL, through the fault hook) at the points where
 * a blob changes hands, then started again on the same data dir: the store must hold only blobs
 * that are what their names say, each with its record, and every file must be downloadable or
 * refused in words, never served wrong.
 */
const running: ServiceProcess[] = [];
const dirs: string[] = [];

async function start(
  dataDir: string,
  fault?: string,
): Promise<{ svc: ServiceProcess; url: string }> {
  const svc = await startService({
    dataDir,
    only: "parcel",
    env: fault ? { GATEHOUSE_FAULT: fault } : {},
  });
  running.push(svc);
  return { svc, url: svc.parcelUrl as string };
}

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), "gh-fault-integrity-"));
  dirs.push(d);
  return d;
}

const blobPath = (dir: string, sha: string) => join(dir, "parcel", "blobs", sha.slice(0, 2), sha);

function fileRow(dir: string, id: string): { state: string; sha256: string | null } {
  const db = openReadOnly(join(dir, "parcel", "parcel.db"));
  try {
    const row = new ParcelsRepo(db).file(id);
    if (!row) throw new Error(`no file ${id}`);
    return { state: row.state, sha256: row.sha256 };
  } finally {
    db.close();
  }
}

interface Verify {
  running: boolean;
  checked: number;
  total: number;
  bad: Array<{ sha256: string; files: string[] }>;
  started_at: number | null;
  finished_at: number | null;
}

async function verifyDone(admin: Client): Promise<Verify> {
  let v = await admin.expect<Verify>(200, "GET", "/api/v1/admin/verify");
  const end = Date.now() + 20_000;
  while (v.running || v.finished_at === null) {
    if (Date.now() > end) throw new Error(`the check did not finish: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
    v = await admin.expect<Verify>(200, "GET", "/api/v1/admin/verify");
  }
  return v;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.kill()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the store invariants", () => {
  it("catch a blob whose size or whose content is not what its name says", async () => {
    const dir = dataDir();
    const { svc, url } = await start(dir);
    const c = new Client(url);
    const { up } = await publishedParcel(c, { "a.bin": 5000, "b.bin": 6000 });
    expect(await svc.stop()).toBe(0);
    expect(checkParcelStore(dir, { hashContent: true }).problems).toEqual([]);
    const [a, b] = up.files.map((f) => fileRow(dir, f.id).sha256 as string);
    appendFileSync(blobPath(dir, a), "x");
    const fd = openSync(blobPath(dir, b), "r+");
    writeSync(fd, Buffer.from("EVIL"), 0, 4, 100);
    closeSync(fd);
    const problems = checkParcelStore(dir, { hashContent: true }).problems;
    expect(problems).toContain(`blob ${a} holds 5001 bytes, its row says 5000`);
    expect(problems).toContain(`file ${up.files[0].id} declares 5000 bytes, its blob holds 5001`);
    expect(problems.some((p) => p.startsWith(`blob ${b} holds content hashing to `))).toBe(true);
  });
});

describe("SIGKILL where a blob changes hands, then restart", () => {
  it("between the blob's rename into the store and the row that records it", async () => {
    const dir = dataDir();
    let { svc, url } = await start(dir, "parcel.blob-placed");
    const c = new Client(url);
    const up: Upload = await createUpload(c, { "placed.bin": 40_000 });
    const body = Buffer.alloc(40_000, "p");
    // The service dies inside this request: the connection goes with it.
    await putFile(c, up, 0, body).catch(() => undefined);
    await svc.reached("parcel.blob-placed");
    await svc.kill();
    // Killed there: the bytes are in blobs/ under their name, no row records them.
    const killed = checkParcelStore(dir, { hashContent: true });
    expect(killed.problems).toEqual([
      `blob file without a blobs row: ${sha256(body).slice(0, 2)}/${sha256(body)}`,
    ]);

    ({ svc, url } = await start(dir));
    expect(await svc.stop()).toBe(0);
    const after = checkParcelStore(dir, { hashContent: true });
    expect(after.problems).toEqual([]);
    expect(after.temp).toEqual([]);
    expect(after.blobFiles).toBe(after.blobRows);
    expect(fileRow(dir, up.files[0].id)).toEqual({ state: "pending", sha256: null });

    // The same content uploads and downloads again.
    ({ svc, url } = await start(dir));
    const again = await publishedParcel(new Client(url), { "placed.bin": 40_000 });
    const r = await recipient(url, again.code);
    const got = await r.request("GET", `/api/v1/pickup/files/${again.up.files[0].id}/download`);
    expect(got.status).toBe(200);
    expect(got.body.equals(again.bodies[0])).toBe(true);
  });

  it("in the middle of a scrub: the check is left unfinished and runs again whole", async () => {
    const dir = dataDir();
    let { svc, url } = await start(dir, "parcel.scrub-mid@2");
    const c = new Client(url);
    const parcel = await publishedParcel(c, { "1.bin": 3000, "2.bin": 4000, "3.bin": 5000 });
    let admin = await parcelAdmin(url);
    await admin.request("POST", "/api/v1/admin/verify").catch(() => undefined);
    await svc.reached("parcel.scrub-mid");
    await svc.kill();
    expect(checkParcelStore(dir, { hashContent: true }).problems).toEqual([]);

    ({ svc, url } = await start(dir));
    admin = await parcelAdmin(url);
    const left = await admin.expect<Verify>(200, "GET", "/api/v1/admin/verify");
    expect(left).toMatchObject({ running: false, total: 3, finished_at: null, bad: [] });
    expect(left.started_at).toEqual(expect.any(Number));
    await admin.expect(200, "POST", "/api/v1/admin/verify");
    expect(await verifyDone(admin)).toMatchObject({ checked: 3, total: 3, bad: [] });
    const r = await recipient(url, parcel.code);
    const got = await r.request("GET", `/api/v1/pickup/files/${parcel.up.files[2].id}/download`);
    expect(got.body.equals(parcel.bodies[2])).toBe(true);
    expect(await svc.stop()).toBe(0);
    expect(checkParcelStore(dir, { hashContent: true }).problems).toEqual([]);
  });

  it("in the middle of a quarantine the scrub started: finished at the next start, never served", async () => {
    const dir = dataDir();
    let { svc, url } = await start(dir, "parcel.quarantine-marked");
    const c = new Client(url);
    const parcel = await publishedParcel(c, { "ok.bin": 3000, "bad.bin": 4000 });
    const badSha = fileRow(dir, parcel.up.files[1].id).sha256 as string;
    const fd = openSync(blobPath(dir, badSha), "r+");
    writeSync(fd, Buffer.from("EVIL"), 0, 4, 10);
    closeSync(fd);
    const admin = await parcelAdmin(url);
    await admin.request("POST", "/api/v1/admin/verify").catch(() => undefined);
    await svc.reached("parcel.quarantine-marked");
    await svc.kill();
    // Killed between the two steps: the record says quarantined, the file is still in blobs/.
    const killed = checkParcelStore(dir);
    expect(killed.problems).toEqual([]);
    expect(killed.quarantinePending).toEqual([badSha]);

    ({ svc, url } = await start(dir));
    const after = checkParcelStore(dir, { hashContent: true });
    expect(after.problems).toEqual([]);
    expect(after.quarantinePending).toEqual([]);
    expect(after.quarantined).toEqual([expect.stringMatching(new RegExp(`^${badSha}\\.\\d+$`))]);
    const found = await (await parcelAdmin(url)).expect<Verify>(200, "GET", "/api/v1/admin/verify");
    expect(found.bad).toEqual([{ sha256: badSha, files: [parcel.up.files[1].id] }]);
    const r = await recipient(url, parcel.code);
    const refused = await r.request(
      "GET",
      `/api/v1/pickup/files/${parcel.up.files[1].id}/download`,
    );
    expect(refused.status).toBe(410);
    expect(refused.json).toMatchObject({ code: "download.damaged", params: { name: "bad.bin" } });
    const ok = await r.request("GET", `/api/v1/pickup/files/${parcel.up.files[0].id}/download`);
    expect(ok.body.equals(parcel.bodies[0])).toBe(true);
  });
});
