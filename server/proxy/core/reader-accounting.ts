import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { AccountingReading, CoreConnections, SourceSum } from "./core-shapes.js";

/**
 * The parts of the core reader's worker that count traffic per source address and name the
 * makers of MAC addresses. They run in the worker thread only: the service's thread receives
 * the small per-address sums, never the connections.
 */

interface CountState {
  /** Each open connection's byte counts at the previous reading. */
  prev: Map<string, [number, number]>;
  uploadTotal: number;
  downloadTotal: number;
  usedAt: number;
}

/** Counts no reading has used for this long are forgotten (a service that went away). */
const STATE_TTL_MS = 10 * 60_000;
const states = new Map<string, CountState>();

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

/**
 * Each connection's bytes since the previous reading of the same count (`key`, one per
 * service), summed per source address. A connection not seen before moved all its bytes since
 * then; counters never go back (a value lower than before counts as 0).
 */
export function account(key: string, view: CoreConnections, nowMs: number): AccountingReading {
  for (const [k, s] of states) if (nowMs - s.usedAt > STATE_TTL_MS) states.delete(k);
  const state = states.get(key);
  const next = new Map<string, [number, number]>();
  const sums = new Map<string, SourceSum>();
  let counted = [0, 0];
  for (const c of view.connections) {
    const up = num(c.upload);
    const down = num(c.download);
    const id = String(c.id);
    next.set(id, [up, down]);
    const meta = c.metadata as { sourceIP?: unknown } | undefined;
    const src = typeof meta?.sourceIP === "string" ? meta.sourceIP : "";
    let sum = sums.get(src);
    if (!sum) {
      sum = [src, 0, 0];
      sums.set(src, sum);
    }
    if (!state) continue;
    const was = state.prev.get(id);
    const du = was ? Math.max(0, up - was[0]) : up;
    const dd = was ? Math.max(0, down - was[1]) : down;
    sum[1] += du;
    sum[2] += dd;
    counted = [counted[0] + du, counted[1] + dd];
  }
  const uploadTotal = num(view.uploadTotal);
  const downloadTotal = num(view.downloadTotal);
  states.set(key, { prev: next, uploadTotal, downloadTotal, usedAt: nowMs });
  // Totals that went down belong to a restarted core: all it counted is new.
  const grown = (now: number, before: number) => (now >= before ? now - before : now);
  return {
    uploadTotal,
    downloadTotal,
    connections: view.connections.length,
    sources: [...sums.values()],
    baseline: !state,
    missedUpload: state ? Math.max(0, grown(uploadTotal, state.uploadTotal) - counted[0]) : 0,
    missedDownload: state ? Math.max(0, grown(downloadTotal, state.downloadTotal) - counted[1]) : 0,
  };
}

/** The IEEE's MA-L registry as the npm package oui-data ships it: prefix (6 hex) → maker. */
let makers: Promise<Map<string, string>> | null = null;

async function loadMakers(): Promise<Map<string, string>> {
  const file = createRequire(import.meta.url).resolve("oui-data");
  const raw = JSON.parse(await readFile(file, "utf8")) as Record<string, string>;
  const out = new Map<string, string>();
  // Each entry is the maker's name and address, one per line: the name is the first.
  for (const [prefix, text] of Object.entries(raw)) {
    const name = text.split("\n", 1)[0].trim();
    if (name) out.set(prefix.toUpperCase(), name);
  }
  return out;
}

/** The maker of each MAC address (`aa:bb:cc:dd:ee:ff`), or null when the registry has none. */
export async function vendorsOf(macs: readonly string[]): Promise<Array<string | null>> {
  makers ??= loadMakers().catch((err: unknown) => {
    makers = null;
    throw err;
  });
  const table = await makers;
  return macs.map((mac) => table.get(mac.replace(/:/g, "").slice(0, 6).toUpperCase()) ?? null);
}
