import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile, request } from "./lib.js";
import { populate } from "./populate.js";
import { ADMIN_PASSWORD, startGatehouse } from "./transfer-gatehouse.js";

/**
 * The admin list endpoints with 100,000 parcels and 1,000,000 audit rows (fewer with a
 * scale below 1): p50 and p95 of 50 requests (after 10 warm ones) per query shape, target p95 < 50 ms.
 */
export async function lists(scale = 1): Promise<Array<Record<string, string | number>>> {
  const PARCELS = Math.round(100_000 * scale);
  const AUDIT = Math.round(1_000_000 * scale);
  const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-bench-lists-"));
  let g = await startGatehouse(dataDir);
  await g.srv.stop();
  const t0 = performance.now();
  populate(join(dataDir, "parcel", "parcel.db"), PARCELS, AUDIT);
  const populateMs = performance.now() - t0;
  g = await startGatehouse(dataDir);
  try {
    const login = await new Promise<string>((resolve, reject) => {
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
      req.on("error", reject);
      req.end(JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }));
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
