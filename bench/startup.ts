import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { median, tableRow, verdict, type Measure } from "./bench-table.js";
import { printTable } from "./lib.js";
import { freePort } from "./nginx.js";
import { populate } from "./populate.js";
import { buildServerIfChanged, SERVE_ENTRY } from "../scripts/build-server-if-changed.js";

/**
 * Start-up benchmark: the headless services as `npm run serve` starts them (the server
 * compiled to dist/serve by its build-if-changed step, run by plain Node) started as a child
 * process on an existing data dir holding 100,000 parcels; measured from the spawn until the
 * parcel service answers `GET /api/v1/health` and the proxy service
 * `GET /api/v1/auth/status`. The data dir is made by the service itself first (its own schema
 * and migrations), then filled straight through SQL. References in the same run: the same
 * start on an empty data dir, the same start from the TypeScript sources through tsx (how
 * `npm run serve` ran before), Node doing nothing, and the build check `npm run serve` runs
 * first when nothing changed.
 *
 * Usage: npm run bench:startup -- [--runs N] [--parcels N] [--audit N]
 */

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    parcels: { type: "string", default: "100000" },
    audit: { type: "string", default: "200000" },
  },
});
const RUNS = Number(values.runs);
const PARCELS = Number(values.parcels);
const AUDIT = Number(values.audit);
const TARGET_MS = 1000;
const tsx = ["--import", "tsx"];

/** Answers true once `url` answers 200; polls every few milliseconds. */
function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
  });
}

async function waitFor(url: string, t0: number, alive: () => boolean): Promise<number> {
  while (!(await answers(url))) {
    if (!alive()) throw new Error(`the service exited before ${url} answered`);
    if (performance.now() - t0 > 60_000) throw new Error(`${url} did not answer within 60 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - t0;
}

interface Start {
  parcelMs: number;
  proxyMs: number;
  bothMs: number;
}

/** One start of both services on `dataDir`: times from the spawn to each answer. */
async function start(dataDir: string, entry: string[] = [SERVE_ENTRY]): Promise<Start> {
  const [parcelPort, proxyPort, controllerPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const output: string[] = [];
  const t0 = performance.now();
  const proc = spawn(
    process.execPath,
    [
      ...entry,
      "--host",
      "127.0.0.1",
      "--parcel-port",
      String(parcelPort),
      "--proxy-port",
      String(proxyPort),
      "--core-controller-port",
      String(controllerPort),
      "--data-dir",
      dataDir,
      "--log-level",
      "warn",
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: "bench-password-1" },
    },
  );
  const keep = (b: Buffer): void => void output.push(b.toString());
  proc.stdout.on("data", keep);
  proc.stderr.on("data", keep);
  let alive = true;
  const exited = new Promise<void>((res) =>
    proc.once("exit", () => {
      alive = false;
      res();
    }),
  );
  try {
    const [parcelMs, proxyMs] = await Promise.all([
      waitFor(`http://127.0.0.1:${parcelPort}/api/v1/health`, t0, () => alive),
      waitFor(`http://127.0.0.1:${proxyPort}/api/v1/auth/status`, t0, () => alive),
    ]);
    return { parcelMs, proxyMs, bothMs: Math.max(parcelMs, proxyMs) };
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${output.join("")}`);
  } finally {
    if (alive) proc.kill("SIGTERM");
    await exited;
  }
}

/** The time one Node process with `args` takes from spawn to exit. */
async function timedRun(args: string[]): Promise<number> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, { stdio: "ignore" });
  await new Promise<void>((res, rej) => {
    proc.once("error", rej);
    proc.once("exit", () => res());
  });
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const big = mkdtempSync(join(tmpdir(), "gatehouse-bench-startup-"));
  const empty = mkdtempSync(join(tmpdir(), "gatehouse-bench-startup-empty-"));
  try {
    await buildServerIfChanged(resolve("."));
    const sources = [...tsx, "server/cli.ts"];
    // The service creates both data dirs (schema, migrations, secrets) before any timing.
    await start(big);
    await start(empty);
    const t0 = performance.now();
    // Parcels created over the last six days, so the published ones are still current and
    // the start has no overdue expiries to sweep (a data dir in daily use).
    const now = Math.floor(Date.now() / 1000);
    const span = 6 * 86400;
    populate(join(big, "parcel", "parcel.db"), PARCELS, AUDIT, {
      base: now - span,
      step: span / Math.max(1, PARCELS),
    });
    console.log(
      `start-up benchmark: ${PARCELS} parcels, ${AUDIT} audit rows (filled in ${((performance.now() - t0) / 1000).toFixed(1)} s), median of ${RUNS} starts each`,
    );
    const bigs: Start[] = [];
    const empties: Start[] = [];
    const bares: number[] = [];
    const viaTsx: Start[] = [];
    const checks: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bigs.push(await start(big));
      viaTsx.push(await start(big, sources));
      empties.push(await start(empty));
      bares.push(await timedRun(["-e", "0"]));
      checks.push(await timedRun([...tsx, "scripts/prepare-serve.ts"]));
    }
    const med = (xs: number[]): number | null => median(xs);
    const emptyBoth = med(empties.map((s) => s.bothMs));
    const rows: Measure[] = [
      {
        measure: `both services answer (${PARCELS} parcels)`,
        value: med(bigs.map((s) => s.bothMs)),
        reference: emptyBoth,
        referenceName: "empty data dir",
        unit: "ms",
        target: { kind: "below", max: TARGET_MS, unit: "ms" },
      },
      {
        measure: `both services answer (${PARCELS} parcels)`,
        value: med(bigs.map((s) => s.bothMs)),
        reference: med(viaTsx.map((s) => s.bothMs)),
        referenceName: "same, from the TypeScript sources through tsx",
        unit: "ms",
        target: { kind: "info" },
      },
      {
        measure: "parcel /api/v1/health answers",
        value: med(bigs.map((s) => s.parcelMs)),
        reference: med(empties.map((s) => s.parcelMs)),
        referenceName: "empty data dir",
        unit: "ms",
        target: { kind: "info" },
      },
      {
        measure: "proxy /api/v1/auth/status answers",
        value: med(bigs.map((s) => s.proxyMs)),
        reference: med(empties.map((s) => s.proxyMs)),
        referenceName: "empty data dir",
        unit: "ms",
        target: { kind: "info" },
      },
      {
        measure: "both services answer (empty data dir)",
        value: emptyBoth,
        reference: med(bares),
        referenceName: "node -e 0 (Node alone)",
        unit: "ms",
        target: { kind: "below", max: TARGET_MS, unit: "ms" },
      },
      {
        measure: "npm run serve's build check, nothing changed",
        value: med(checks),
        reference: null,
        referenceName: "",
        unit: "ms",
        target: { kind: "info" },
      },
    ];
    printTable("Start-up, from spawn until the services answer", rows.map(tableRow));
    const worst = Math.max(...bigs.map((s) => s.bothMs));
    console.log(`slowest of ${RUNS} starts with ${PARCELS} parcels: ${worst.toFixed(0)} ms`);
    if (rows.some((m) => verdict(m) === "NO")) process.exitCode = 1;
  } finally {
    rmSync(big, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
