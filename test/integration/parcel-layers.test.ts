import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runCleanup } from "../../server/parcel/cleanup.js";
import { CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { bearer, createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { prepareProbe, SqliteConnection } from "../helpers/raw-db.js";

const ROOT = join(import.meta.dirname, "..", "..");
const PARCEL = join(ROOT, "server", "parcel");

/** Every TypeScript file under `dir`, as paths relative to the repository root. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)).split("\\").join("/"))
    .sort();
}

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** The layers below the routes: they take plain inputs and know nothing of HTTP. */
const BELOW_ROUTES = /^server\/parcel\/(domain|repos|storage)\/|^server\/parcel\/cleanup\.ts$/;

describe("parcel service layers", () => {
  it("keeps every prepared statement in server/parcel/repos", () => {
    const all = sources(PARCEL);
    expect(all.length).toBeGreaterThan(40);
    const outside = all.filter(
      (f) => !f.startsWith("server/parcel/repos/") && /\.prepare\s*\(/.test(read(f)),
    );
    expect(outside).toEqual([]);
    // The scan looks where the statements are: the repositories hold them.
    const inside = all.filter((f) => f.startsWith("server/parcel/repos/"));
    expect(inside.filter((f) => /\.prepare\s*\(/.test(read(f))).length).toBeGreaterThan(5);
  });

  it("keeps Express, HttpError and every HTTP module out of domain, repositories, storage and cleanup", () => {
    const below = sources(PARCEL).filter((f) => BELOW_ROUTES.test(f));
    expect(below).toContain("server/parcel/cleanup.ts");
    expect(below.some((f) => f.startsWith("server/parcel/domain/"))).toBe(true);
    expect(below.some((f) => f.startsWith("server/parcel/storage/"))).toBe(true);
    const problems = below.flatMap((f) => {
      const text = read(f);
      const found: string[] = [];
      if (/from\s+["']express["']/.test(text)) found.push(`${f}: imports express`);
      if (/\bHttpError\b/.test(text)) found.push(`${f}: names HttpError`);
      // Neither the shared HTTP helpers (server/http) nor the parcel's own (server/parcel/http).
      if (/from\s+["'](\.\.?\/)+http\//.test(text)) found.push(`${f}: imports an HTTP module`);
      return found;
    });
    expect(problems).toEqual([]);
  });

  it("gives routes a context without the database", () => {
    // The routes' context extends the domain's ports, which carry the repositories.
    const context = read("server/parcel/context.ts");
    const ports = read("server/parcel/domain/ports.ts");
    expect(context).toMatch(/interface ParcelContext extends ParcelDomain\b/);
    for (const text of [context, ports]) expect(text).not.toMatch(/\bdb\s*:/);
    expect(ports).toMatch(/\brepos\s*:\s*ParcelRepos/);
  });
});

describe("parcel repositories", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await h?.close(true);
    h = undefined;
  });

  /**
   * One pass over the service's requests: visitor, upload, publish, owner views, a new code,
   * pickup and both downloads, a wrong code, the administrator's pages, revoke and cleanup.
   */
  async function oneOfEverything(service: Harness, admin: CookieJar, round: number) {
    const ok = (status: number, what: string) => expect(status, what).toBeLessThan(300);
    ok((await service.request("GET", "/health")).status, "health");
    ok((await service.request("GET", "/policy")).status, "policy");
    const up = await createUpload(
      service,
      { [`a${round}.txt`]: 10, [`b${round}.txt`]: 20 },
      {
        downloads: 5,
      },
    );
    ok((await uploadAndPublish(service, up)).status, "publish");
    const owner = { headers: bearer(up.manage_token) };
    ok((await service.request("GET", `/uploads/${up.id}`, owner)).status, "owner view");
    ok((await service.request("GET", "/mine")).status, "mine");
    const fresh = await service.request("POST", `/parcels/${up.id}/code`, owner);
    ok(fresh.status, "new code");
    const jar = new CookieJar();
    const body = { code: fresh.json.code as string };
    ok((await service.request("POST", "/pickup/resolve", { jar, body })).status, "resolve");
    ok((await service.request("GET", "/pickup", { jar })).status, "pickup");
    const file = `/pickup/files/${up.files[0].id}/download`;
    ok((await service.request("GET", file, { jar })).status, "download");
    ok((await service.request("GET", "/pickup/archive", { jar })).status, "archive");
    const wrong = await service.request("POST", "/pickup/resolve", {
      jar: new CookieJar(),
      body: { code: "ZZZZZZ" },
    });
    expect(wrong.status).toBe(404);
    for (const path of ["/status", "/stats", "/parcels", "/parcels?q=a", "/audit"])
      ok((await service.request("GET", `/admin${path}`, { jar: admin })).status, path);
    ok((await service.request("POST", `/parcels/${up.id}/revoke`, owner)).status, "revoke");
    await runCleanup(service.service.ctx, { full: true });
  }

  it("prepares no statement while serving requests: each is prepared once, at start or first use", async () => {
    h = await startParcel({ diskFree: () => 50 * 1024 ** 3 });
    const admin = new CookieJar();
    const login = await h.request("POST", "/admin/login", {
      jar: admin,
      body: { username: "admin", password: "admin-password-1" },
    });
    expect(login.status).toBe(200);
    const prepare = vi.spyOn(SqliteConnection.prototype, "prepare");
    // The first pass may meet a query shape for the first time (the filtered admin lists).
    await oneOfEverything(h, admin, 0);
    // The spy sees every connection's prepare, the service's as much as this one.
    prepare.mockClear();
    prepareProbe(h.db);
    expect(prepare).toHaveBeenCalledTimes(1);
    prepare.mockClear();
    for (let round = 1; round <= 3; round++) await oneOfEverything(h, admin, round);
    expect(prepare.mock.calls.map((c) => String(c[0]).replace(/\s+/g, " "))).toEqual([]);
  });
});
