import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { scryptSync } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ACCOUNT_COST, PICKUP_COST, type ScryptCost } from "../server/password-hash.js";
import { resetPeak, rss } from "./lib.js";
import { agentFor, call, Recorder } from "./load-client.js";
import {
  cleanup,
  cleaningUp,
  cleanUpOnSignals,
  cpuSeconds,
  onCleanup,
  runLoad,
  serviceStats,
  startService,
} from "./load-processes.js";
import type { LoadResult } from "./load-protocol.js";
import { printReport } from "./load-report.js";
import type { HashTimes } from "./load-targets.js";
import { closeSetupAgent, parcelPolicy, proxyConsoles, publishTargets } from "./load-setup.js";

/**
 * Load benchmark (`npm run bench:load`): both services in one process of their own (as
 * `npm run serve` runs them, on 127.0.0.1 only, with a fresh data dir and the fake core), and
 * in another process at the same time for LOAD_SECONDS (default 60): 200 pickup clients
 * (resolve a code, with or without password, then download the file, again and again), 20
 * uploaders (create, PUT, publish, revoke, again) and 50 signed-in proxy consoles holding the
 * events and logs streams open. BENCH_SCALE (e.g. 0.25) scales the client counts. Prints
 * throughput, latency and errors per kind of request, the service's peak RSS and event-loop
 * delay, then the targets (a password resolve p99 under 1 s, no request failed) and PASS when
 * every one is met; the exit code is 1 otherwise. LOAD_PASSWORD_SHARE
 * (default 0.5) is the share of pickup clients whose parcels have a password; LOAD_CPU_PROF=<dir>
 * writes a CPU profile of the service process.
 */
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
/** Share of the pickup clients whose parcels have a password (LOAD_PASSWORD_SHARE, 0..1). */
const PASSWORD_SHARE = Number(process.env.LOAD_PASSWORD_SHARE ?? 0.5);
if (
  !(SCALE > 0 && SCALE <= 4) ||
  !(SECONDS > 0 && SECONDS <= 600) ||
  !(PASSWORD_SHARE >= 0 && PASSWORD_SHARE <= 1)
) {
  console.error(
    "BENCH_SCALE must be in (0, 4], LOAD_SECONDS in (0, 600], LOAD_PASSWORD_SHARE in [0, 1]",
  );
  process.exit(2);
}
const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));
const PICKUP_CLIENTS = Math.max(2, scaled(200));
const UPLOAD_CLIENTS = scaled(20);
const CONSOLES = scaled(50);
const KIB = 1024;
/** Sizes of the parcels picked up: one set without and one with a password. */
const PICKUP_SIZES = [256 * KIB, 512 * KIB, 768 * KIB, 1024 * KIB];
const UPLOAD_MIN = 256 * KIB;
const UPLOAD_MAX = 1024 * KIB;
const LOGS_PER_SECOND = 10;
const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");
const ADMIN_PASSWORD = "load-bench-admin-1";
cleanUpOnSignals();

/**
 * `GET /health` every 100 ms from this (otherwise idle) process: the service's lag as a client
 * sees it. `split()` starts a new recorder for the measured phase.
 */
function healthProbe(parcelUrl: string): {
  start: Recorder;
  rec(): Recorder;
  split(): void;
  stop(): Promise<void>;
} {
  const start = new Recorder("health probe, every 100 ms, during the start");
  let rec = start;
  const agent = agentFor(1);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      try {
        rec.answer(await call(`${parcelUrl}/api/v1/health`, { agent }));
      } catch (err) {
        rec.socketError(err);
      }
      await sleep(Math.max(0, 100 - (performance.now() - t0)));
    }
  })();
  return {
    start,
    rec: () => rec,
    split() {
      rec = new Recorder("health probe (GET /health every 100 ms)");
    },
    async stop() {
      stopped = true;
      await loop;
      agent.destroy();
    },
  };
}

/** Median time of one scrypt hash at `cost` in this process (before the load: the machine's pace). */
function hashMs(cost: ScryptCost): number {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    scryptSync("load-bench-password", "load-bench-salt!", 32, { ...cost, maxmem: 64 << 20 });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[3];
}

function hashTimes(): HashTimes {
  const label = (c: ScryptCost): string => `scrypt N=${c.N} r=${c.r} p=${c.p}`;
  return {
    account: { label: label(ACCOUNT_COST), ms: hashMs(ACCOUNT_COST) },
    pickup: { label: label(PICKUP_COST), ms: hashMs(PICKUP_COST) },
  };
}

async function main(): Promise<void> {
  console.log(
    `load benchmark: ${SECONDS} s, ${PICKUP_CLIENTS} pickup clients, ${UPLOAD_CLIENTS} uploaders, ${CONSOLES} proxy consoles (127.0.0.1 only)`,
  );
  const hashes = hashTimes();
  const root = mkdtempSync(join(tmpdir(), "gatehouse-bench-load-"));
  onCleanup(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = join(root, "data");
  mkdirSync(dataDir, { mode: 0o700 });
  const logFile = join(root, "service.log");
  const output: string[] = [];
  const { proc, ready } = await startService(
    { dataDir, coreBin: FAKE_CORE, adminPassword: ADMIN_PASSWORD, logFile },
    output,
  );
  const pid = proc.pid ?? 0;

  await parcelPolicy(ready.parcelUrl, ADMIN_PASSWORD);
  const targets = [
    ...(await publishTargets(ready.parcelUrl, PICKUP_SIZES, "")),
    ...(await publishTargets(ready.parcelUrl, PICKUP_SIZES, "load-bench-parcel-pw")),
  ];
  const proxy = await proxyConsoles(
    ready.proxyUrl,
    ready.setupToken,
    dataDir,
    ready.controllerPort,
    CONSOLES,
  );
  closeSetupAgent();

  // The peak is read for the load alone when the kernel lets it be reset.
  const idle = rss(pid).rss;
  const peakReset = resetPeak(pid);
  const logsFrom = statSync(logFile).size;
  // CPU, machine load and event-loop delay are read over the measured phase, from when the
  // load process says it begins.
  let cpuFrom = cpuSeconds(pid);
  let loadFrom = loadavg()[0];
  const measuring = (): void => {
    probe.split();
    proc.send({ kind: "reset" });
    cpuFrom = cpuSeconds(pid);
    loadFrom = loadavg()[0];
  };
  let sampled = idle;
  const sampler = setInterval(() => {
    try {
      sampled = Math.max(sampled, rss(pid).rss);
    } catch {
      // the process is gone; the run reports it
    }
  }, 250);
  const probe = healthProbe(ready.parcelUrl);
  let result: LoadResult;
  try {
    result = await runLoad(
      {
        seconds: SECONDS,
        parcelUrl: ready.parcelUrl,
        proxyUrl: ready.proxyUrl,
        pickupClients: PICKUP_CLIENTS,
        passwordShare: PASSWORD_SHARE,
        pickupTargets: targets,
        uploadClients: UPLOAD_CLIENTS,
        uploadMinBytes: UPLOAD_MIN,
        uploadMaxBytes: UPLOAD_MAX,
        consoleCookies: proxy.cookies,
        coreUrl: proxy.coreUrl,
        coreSecret: proxy.coreSecret,
        logsPerSecond: LOGS_PER_SECOND,
      },
      measuring,
    );
  } finally {
    clearInterval(sampler);
    await probe.stop();
  }
  const stats = await serviceStats(proc);
  const mem = rss(pid);
  const pass = printReport({
    result,
    health: { start: probe.start.summary(), load: probe.rec().summary() },
    stats,
    memory: { idle, peak: mem.hwm, sampled, peakReset },
    cpu: { service: cpuSeconds(pid) - cpuFrom, load: [loadFrom, loadavg()[0]] },
    serviceLog: [
      ...readFileSync(logFile).subarray(logsFrom).toString().split("\n").filter(Boolean),
      ...output,
    ],
    hashes,
  });
  if (!pass) process.exitCode = 1;
}

main()
  .catch((err: unknown) => {
    // After Ctrl-C the children's ends are the interruption, not a finding.
    if (cleaningUp()) return;
    console.error(err instanceof Error ? err.stack : String(err));
    process.exitCode = 1;
  })
  .finally(() => cleanup());
