import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  blocks,
  mib,
  percentile,
  printTable,
  request,
  resetPeak,
  rss,
  startChild,
  type ChildServer,
} from "./lib.js";
import { populate } from "./populate.js";

/**
 * Transfer benchmark: upload and download of a 1 GiB file over loopback and 32 concurrent
 * downloads of a 64 MiB file, against a minimal pipe-to-disk / disk-to-socket Node server
 * measured in the same run; then the admin list endpoints with 100,000 parcels and 1,000,000
 * audit rows. Sizes can be scaled down with BENCH_SCALE (e.g. 0.25) for a quick look.
 */
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const BIG = Math.round(1024 * 1048576 * SCALE);
const MID = Math.round(64 * 1048576 * SCALE);
const PARALLEL = 32;
/**
 * Size of the warm-up transfers each server gets before its memory baseline is read: the
 * figure is the growth the big transfers cause, not the one-off cost of the first request
 * (lazily loaded modules, JIT, the database's first pages, the heap's young generation).
 */
const WARM = 4 * 1048576;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PARCELS = Math.round(100_000 * SCALE);
const AUDIT = Math.round(1_000_000 * SCALE);
const block = randomBytes(1048576);
const tsx = ["--import", "tsx"];

async function baseline(): Promise<{
  up: number;
  durable: number;
  down: number;
  par: number;
  peak: number;
}> {
  const srv = await startChild(
    process.execPath,
    [...tsx, "bench/baseline-server.ts"],
    /baseline listening on (\S+)/,
  );
  try {
    const pid = srv.proc.pid ?? 0;
    await request(`${srv.url}/warm`, { method: "PUT", upload: blocks(WARM, block) });
    await request(`${srv.url}/warm?durable`, { method: "PUT", upload: blocks(WARM, block) });
    await Promise.all(Array.from({ length: PARALLEL }, () => request(`${srv.url}/warm`)));
    const idle = settledRss(pid);
    const up = await request(`${srv.url}/big`, { method: "PUT", upload: blocks(BIG, block) });
    const durable = await request(`${srv.url}/big?durable`, {
      method: "PUT",
      upload: blocks(BIG, block),
    });
    const down = await request(`${srv.url}/big`);
    await request(`${srv.url}/mid`, { method: "PUT", upload: blocks(MID, block) });
    const t0 = performance.now();
    const all = await Promise.all(
      Array.from({ length: PARALLEL }, () => request(`${srv.url}/mid`)),
    );
    const parMs = performance.now() - t0;
    if (down.bytes !== BIG || all.some((r) => r.bytes !== MID))
      throw new Error("baseline transfer incomplete");
    return {
      up: BIG / up.ms,
      durable: BIG / durable.ms,
      down: BIG / down.ms,
      par: (PARALLEL * MID) / parMs,
      peak: rss(pid).hwm - idle,
    };
  } finally {
    await srv.stop();
  }
}

/** The members of the API replies the benchmark reads. */
interface ApiReply {
  id: string;
  manage_token: string;
  files: Array<{ id: string }>;
  code: string;
}

interface Gate {
  srv: ChildServer;
  origin: string;
  api: string;
}

async function startGatehouse(dataDir: string): Promise<Gate> {
  const srv = await startChild(
    process.execPath,
    [
      ...tsx,
      "server/cli.ts",
      "--parcel-only",
      "--host",
      "127.0.0.1",
      "--parcel-port",
      "0",
      "--data-dir",
      dataDir,
    ],
    /parcel service listening on (http:\S+)/,
    { GATEHOUSE_ADMIN_PASSWORD: "bench-password-1" },
  );
  return { srv, origin: srv.url, api: `${srv.url}/api/v1` };
}

async function json(
  g: Gate,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiReply> {
  const r = await request(`${g.api}${path}`, {
    method,
    keep: true,
    headers: { origin: g.origin, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status} ${r.body.toString()}`);
  return JSON.parse(r.body.toString()) as ApiReply;
}

/** Uploads one file of `size` bytes and publishes it; remembers its code for the pickup. */
async function parcel(
  g: Gate,
  size: number,
  downloads: number,
): Promise<{ fileId: string; upMs: number }> {
  const created = await json(g, "POST", "/uploads", {
    files: [{ name: "bench.bin", size }],
    downloads,
    days: 1,
  });
  const auth = { authorization: `Bearer ${created.manage_token}`, origin: g.origin };
  const put = await request(`${g.api}/uploads/${created.id}/files/${created.files[0].id}`, {
    method: "PUT",
    headers: { ...auth, "content-length": String(size) },
    upload: blocks(size, block),
  });
  if (put.status !== 200) throw new Error(`PUT -> ${put.status}`);
  const published = await json(g, "POST", `/uploads/${created.id}/publish`, undefined, auth);
  codes.set(created.files[0].id, published.code);
  return { fileId: created.files[0].id, upMs: put.ms };
}

async function gatehouseTransfers(): Promise<{
  up: number;
  down: number;
  par: number;
  peak: number;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-bench-"));
  const g = await startGatehouse(dataDir);
  try {
    const pid = g.srv.proc.pid ?? 0;
    const warm = await parcel(g, WARM, PARALLEL + 1);
    const cookieWarm = await pickupCookie(g, warm.fileId);
    await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        request(`${g.api}/pickup/files/${warm.fileId}/download`, {
          headers: { cookie: cookieWarm },
        }),
      ),
    );
    const idle = settledRss(pid);
    const big = await parcel(g, BIG, 10);
    const cookieBig = await pickupCookie(g, big.fileId);
    const down = await request(`${g.api}/pickup/files/${big.fileId}/download`, {
      headers: { cookie: cookieBig },
    });
    const mid = await parcel(g, MID, PARALLEL + 1);
    const cookieMid = await pickupCookie(g, mid.fileId);
    const t0 = performance.now();
    const all = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        request(`${g.api}/pickup/files/${mid.fileId}/download`, { headers: { cookie: cookieMid } }),
      ),
    );
    const parMs = performance.now() - t0;
    if (down.bytes !== BIG || all.some((r) => r.bytes !== MID))
      throw new Error("gatehouse transfer incomplete");
    return {
      up: BIG / big.upMs,
      down: BIG / down.ms,
      par: (PARALLEL * MID) / parMs,
      peak: rss(pid).hwm - idle,
    };
  } finally {
    await g.srv.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The current RSS of a server after its warm-up, with its high-water mark reset to it. */
function settledRss(pid: number): number {
  resetPeak(pid);
  return rss(pid).rss;
}

const codes = new Map<string, string>();
async function pickupCookie(g: Gate, fileId: string): Promise<string> {
  const code = codes.get(fileId);
  if (!code) throw new Error("no code recorded");
  return new Promise((resolve, reject) => {
    import("node:http").then(({ default: http }) => {
      const req = http.request(
        `${g.api}/pickup/resolve`,
        { method: "POST", headers: { origin: g.origin, "content-type": "application/json" } },
        (res) => {
          res.resume();
          const set = res.headers["set-cookie"]?.[0];
          if (res.statusCode !== 200 || !set) reject(new Error(`resolve -> ${res.statusCode}`));
          else resolve(set.split(";")[0]);
        },
      );
      req.end(JSON.stringify({ code, password: "" }));
    }, reject);
  });
}

async function lists(): Promise<Array<Record<string, string | number>>> {
  const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-bench-lists-"));
  let g = await startGatehouse(dataDir);
  await g.srv.stop();
  const t0 = performance.now();
  populate(join(dataDir, "parcel", "parcel.db"), PARCELS, AUDIT);
  const populateMs = performance.now() - t0;
  g = await startGatehouse(dataDir);
  try {
    const login = await new Promise<string>((resolve, reject) => {
      import("node:http").then(({ default: http }) => {
        const req = http.request(
          `${g.api}/admin/login`,
          { method: "POST", headers: { origin: g.origin, "content-type": "application/json" } },
          (res) => {
            res.resume();
            const set = res.headers["set-cookie"]?.[0];
            if (res.statusCode !== 200 || !set) reject(new Error(`login -> ${res.statusCode}`));
            else resolve(set.split(";")[0]);
          },
        );
        req.end(JSON.stringify({ username: "admin", password: "bench-password-1" }));
      }, reject);
    });
    const cases: Array<[string, (i: number) => string]> = [
      ["parcels, page i", (i) => `/admin/parcels?page=${1 + ((i * 997) % 1000)}&page_size=100`],
      ["parcels, q=name", (i) => `/admin/parcels?q=report-${i % 50}&page=${1 + (i % 5)}`],
      ["parcels, q=id fragment", (i) => `/admin/parcels?q=${["aB", "x9", "Qz", "k_"][i % 4]}`],
      [
        "parcels, state filter",
        (i) =>
          `/admin/parcels?state=${["published", "expired", "revoked"][i % 3]}&page=${1 + (i % 50)}`,
      ],
      ["audit, page i", (i) => `/admin/audit?page=${1 + ((i * 7919) % 5000)}&page_size=100`],
      [
        "audit, action",
        (i) =>
          `/admin/audit?action=${["download.start", "pickup.resolve", "upload.create"][i % 3]}&page=${1 + (i % 20)}`,
      ],
      [
        "audit, source fragment",
        (i) => `/admin/audit?source=${["192.168.1.1", "visitor:a", "admin:"][i % 3]}`,
      ],
      [
        "audit, target + from/to",
        (i) =>
          `/admin/audit?target=parcel:${["a", "b", "c"][i % 3]}&from=${1767225600 + i * 1000}&to=${1767225600 + 2_000_000 + i * 1000}`,
      ],
      ["audit, % and _ literal", () => `/admin/audit?source=%25_%25`],
    ];
    const rows: Array<Record<string, string | number>> = [];
    for (const [name, path] of cases) {
      const times: number[] = [];
      for (let i = 0; i < 60; i++) {
        const r = await request(`${g.api}${path(i)}`, { headers: { cookie: login } });
        if (r.status !== 200) throw new Error(`${path(i)} -> ${r.status}`);
        if (i >= 10) times.push(r.ms);
      }
      rows.push({
        endpoint: name,
        "p50 ms": percentile(times, 50).toFixed(1),
        "p95 ms": percentile(times, 95).toFixed(1),
        target: "< 50",
        ok: percentile(times, 95) < 50 ? "yes" : "NO",
      });
    }
    rows.push({
      endpoint: `(populate ${PARCELS} parcels, ${AUDIT} audit rows)`,
      "p50 ms": "",
      "p95 ms": populateMs.toFixed(0),
      target: "",
      ok: "",
    });
    return rows;
  } finally {
    await g.srv.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `transfer benchmark: ${mib(BIG)} MiB file, ${PARALLEL} x ${mib(MID)} MiB concurrent downloads, median of ${ROUNDS} rounds`,
  );
  // Rounds alternate between the two servers; each figure is the median of its rounds (a
  // shared machine's noise hits both sides), the memory figure the largest.
  const bases: Awaited<ReturnType<typeof baseline>>[] = [];
  const gates: Awaited<ReturnType<typeof gatehouseTransfers>>[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bases.push(await baseline());
    gates.push(await gatehouseTransfers());
  }
  const med = (values: number[]): number => percentile(values, 50);
  const base = {
    up: med(bases.map((r) => r.up)),
    durable: med(bases.map((r) => r.durable)),
    down: med(bases.map((r) => r.down)),
    par: med(bases.map((r) => r.par)),
    peak: Math.max(...bases.map((r) => r.peak)),
  };
  const gate = {
    up: med(gates.map((r) => r.up)),
    down: med(gates.map((r) => r.down)),
    par: med(gates.map((r) => r.par)),
    peak: Math.max(...gates.map((r) => r.peak)),
  };
  const rate = (bpms: number): string => ((bpms * 1000) / 1048576).toFixed(0);
  printTable("Transfers over loopback (MiB/s; peak RSS growth in MiB)", [
    {
      measure: "upload 1 GiB",
      baseline: rate(base.up),
      gatehouse: rate(gate.up),
      ratio: `${((gate.up / base.up) * 100).toFixed(0)}%`,
      target: ">= 85%",
      ok: gate.up / base.up >= 0.85 ? "yes" : "NO",
    },
    {
      measure: "upload 1 GiB (info: baseline + sha256 + fsync)",
      baseline: rate(base.durable),
      gatehouse: rate(gate.up),
      ratio: `${((gate.up / base.durable) * 100).toFixed(0)}%`,
      target: "",
      ok: "",
    },
    {
      measure: "download 1 GiB",
      baseline: rate(base.down),
      gatehouse: rate(gate.down),
      ratio: `${((gate.down / base.down) * 100).toFixed(0)}%`,
      target: ">= 90%",
      ok: gate.down / base.down >= 0.9 ? "yes" : "NO",
    },
    {
      measure: `${PARALLEL} parallel downloads`,
      baseline: rate(base.par),
      gatehouse: rate(gate.par),
      ratio: `${((gate.par / base.par) * 100).toFixed(0)}%`,
      target: ">= 90%",
      ok: gate.par / base.par >= 0.9 ? "yes" : "NO",
    },
    {
      measure: "peak RSS growth",
      baseline: mib(base.peak),
      gatehouse: mib(gate.peak),
      ratio: "",
      target: "< 64 MiB",
      ok: gate.peak < 64 * 1048576 ? "yes" : "NO",
    },
  ]);
  if (process.env.BENCH_SKIP_LISTS !== "1")
    printTable(`Admin lists (${PARCELS} parcels, ${AUDIT} audit rows)`, await lists());
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
