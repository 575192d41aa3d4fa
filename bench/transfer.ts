import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statfsSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import {
  formatSize,
  parseTransferArgs,
  refuseForSpace,
  TRANSFER_USAGE,
  type TransferOptions,
} from "./bench-args.js";
import { allMet, mbps, median, tableRow, verdict, type Measure } from "./bench-table.js";
import { printTable } from "./lib.js";
import { ensureNginx } from "./nginx.js";
import { curlPairs, type CurlPairs } from "./transfer-curl.js";
import { lists } from "./transfer-lists.js";
import {
  diskRound,
  gatehouseRound,
  PHASES,
  nginxRound,
  nodeRound,
  writeSources,
  type GateRound,
  type NginxRound,
  type NodeRound,
  type Source,
} from "./transfer-rounds.js";

/**
 * Transfer benchmark: Gatehouse against references measured in the same run, on the same
 * file: nginx serving it with sendfile (the download ceiling), a bare Node server doing the
 * same mandatory upload work (temp file, sha256 of every byte, fsync before rename), and the
 * machine's own limit for that work without any network. Rounds alternate between the
 * servers; each figure is the median of its rounds (a shared machine's noise hits every side),
 * the memory figure the largest. `--gateway` pins each service to core 0 and this client to
 * core 1. Options: see TRANSFER_USAGE (`npm run bench:transfer -- --help`).
 */

const PARALLEL = 32;
/** A saturated gigabit link's payload rate, the gateway-class target. */
const GIGABIT_MBPS = 118;
const MIB = 1048576;

interface Rounds {
  gate: GateRound[];
  node: NodeRound[];
  nginx: NginxRound[];
  disk: number[];
  curl: CurlPairs;
}

function measures(o: TransferOptions, src: Source, r: Rounds, nginxName: string): Measure[] {
  const rate = (bytes: number, ms: number[]): number | null => {
    const m = median(ms);
    return m === null ? null : mbps(bytes, m);
  };
  const size = formatSize(o.size);
  const up = rate(
    o.size,
    r.gate.map((g) => g.upMs),
  );
  const down = rate(
    o.size,
    r.gate.map((g) => g.downMs),
  );
  const zip = rate(
    o.size,
    r.gate.map((g) => g.zipMs),
  );
  const sameWork = rate(
    o.size,
    r.node.map((n) => n.sameWorkUpMs),
  );
  const nginxDown = rate(
    o.size,
    r.nginx.map((n) => n.downMs),
  );
  // On the gateway run the loopback ratios are for information; the link speed is the target.
  const ratioTarget = (min: number): Measure["target"] =>
    o.gateway ? { kind: "info" } : { kind: "ratio-at-least", min };
  const rows: Measure[] = [
    {
      measure: `upload ${size}`,
      value: up,
      reference: sameWork,
      referenceName: "Node, same work (sha256 + fsync + rename)",
      unit: "MB/s",
      target: ratioTarget(1.0),
    },
    {
      // What people script: the file sent by curl, to both servers.
      measure: `upload ${size} sent by curl -T`,
      value: rate(o.size, r.curl.gateMs),
      reference: rate(o.size, r.curl.nodeMs),
      referenceName: "Node, same work, sent by curl -T",
      unit: "MB/s",
      target: ratioTarget(1.0),
    },
    {
      // Hashing off the request thread, measured rather than assumed: the same-work server
      // with its sha256 on a second thread. Gatehouse hashes on the request thread.
      measure: "same-work Node, sha256 on a second thread",
      value: rate(
        o.size,
        r.node.map((n) => n.threadUpMs),
      ),
      reference: sameWork,
      referenceName: "the same with sha256 on the request thread",
      unit: "MB/s",
      target: { kind: "info" },
    },
    {
      measure: `upload ${size}`,
      value: up,
      reference: rate(o.size, r.disk),
      referenceName: "machine limit (read + sha256 + write + fsync, no network)",
      unit: "MB/s",
      target: { kind: "info" },
    },
    {
      measure: `upload ${size}`,
      value: up,
      reference: rate(
        o.size,
        r.node.map((n) => n.plainUpMs),
      ),
      referenceName: "bare Node pipe to disk (no hash, no fsync)",
      unit: "MB/s",
      target: { kind: "info" },
    },
    {
      measure: `download ${size}`,
      value: down,
      reference: nginxDown,
      referenceName: nginxName,
      unit: "MB/s",
      target: ratioTarget(0.9),
    },
    {
      measure: `download ${size}`,
      value: down,
      reference: rate(
        o.size,
        r.node.map((n) => n.downMs),
      ),
      referenceName: "bare Node createReadStream().pipe(res)",
      unit: "MB/s",
      target: { kind: "info" },
    },
    {
      measure: `ZIP of ${size}${r.gate.some((g) => g.zip64) ? " (ZIP64)" : ""}`,
      value: zip,
      reference: nginxDown,
      referenceName: nginxName,
      unit: "MB/s",
      target: { kind: "info" },
    },
    {
      measure: `${PARALLEL} parallel downloads of ${formatSize(src.mid)}`,
      value: rate(
        PARALLEL * src.mid,
        r.gate.map((g) => g.parMs),
      ),
      reference: rate(
        PARALLEL * src.mid,
        r.nginx.map((n) => n.parMs),
      ),
      referenceName: nginxName,
      unit: "MB/s",
      target: { kind: "info" },
    },
  ];
  if (o.gateway) {
    for (const [what, value] of [
      ["upload", up],
      ["download", down],
      ["ZIP download", zip],
    ] as const) {
      rows.push({
        measure: `${what} ${size}, one core each`,
        value,
        reference: GIGABIT_MBPS,
        referenceName: "saturated gigabit link",
        unit: "MB/s",
        target: { kind: "at-least", min: GIGABIT_MBPS, unit: "MB/s" },
      });
    }
  }
  const peaks = r.gate.map((g) => g.peak);
  rows.push(
    {
      measure: "peak RSS growth",
      value: peaks.length ? Math.max(...peaks) / MIB : null,
      reference: r.node.length ? Math.max(...r.node.map((n) => n.peak)) / MIB : null,
      referenceName: "bare Node",
      unit: "MiB",
      target: { kind: "below", max: 64, unit: "MiB" },
    },
    ...PHASES.map((phase): Measure => ({
      measure: `peak RSS growth during the ${phase}`,
      value: peaks.length ? Math.max(...r.gate.map((g) => g.phases[phase])) / MIB : null,
      reference: null,
      referenceName: "",
      unit: "MiB",
      target: { kind: "info" },
    })),
    {
      measure: "bytes intact (sha256 of upload, curl -T upload, download, ZIP entry)",
      value:
        r.gate.length > 0 && r.gate.every((g) => g.intact) && r.curl.problems.length === 0 ? 1 : 0,
      reference: null,
      referenceName: "",
      unit: "",
      target: { kind: "true" },
    },
  );
  return rows;
}

/** A failure of one part says which part failed (a socket error alone names none). */
async function named<T>(what: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** Pins this process (every thread: it is the client) to `cpu`. */
function pinSelf(cpu: number): void {
  execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(process.pid)], {
    stdio: "ignore",
  });
}

async function main(): Promise<void> {
  const o = parseTransferArgs(process.argv.slice(2), process.env);
  if (o === "help") {
    console.log(TRANSFER_USAGE);
    return;
  }
  const base = tmpdir();
  const fs = statfsSync(base);
  const refusal = refuseForSpace(o.size, fs.bavail * fs.bsize, base);
  if (refusal) {
    console.error(refusal);
    process.exit(2);
  }
  if (o.gateway) {
    if (availableParallelism() < 2) throw new Error("--gateway needs two cores");
    pinSelf(1);
  }
  let nginxBin: string | null = null;
  try {
    nginxBin = ensureNginx((line) => console.log(line));
  } catch (err) {
    console.error(`set-up: ${(err as Error).message}; the nginx figures will read n/a`);
  }
  const work = mkdtempSync(join(base, "gatehouse-bench-transfer-"));
  try {
    const www = join(work, "www");
    mkdirSync(www);
    const block = randomBytes(MIB);
    const mid = Math.min(64 * MIB, o.size);
    const partial = { size: o.size, mid, parallel: PARALLEL, www, work, block };
    const src: Source = {
      ...partial,
      ...(await writeSources(partial)),
      pin: o.gateway ? 0 : undefined,
    };
    console.log(
      `transfer benchmark: ${formatSize(o.size)} file, ${PARALLEL} x ${formatSize(mid)} parallel downloads, median of ${o.runs} run(s)${o.gateway ? ", services on core 0 and the client on core 1 (taskset)" : ", loopback"}`,
    );
    const curl: CurlPairs = { gateMs: [], nodeMs: [], problems: [] };
    const rounds: Rounds = { gate: [], node: [], nginx: [], disk: [], curl };
    for (let i = 0; i < o.runs; i++) {
      const t0 = performance.now();
      rounds.disk.push(await diskRound(src));
      rounds.node.push(await named("the Node round", nodeRound(src)));
      if (nginxBin) rounds.nginx.push(await named("the nginx round", nginxRound(nginxBin, src)));
      const g = await named("the Gatehouse round", gatehouseRound(src));
      rounds.gate.push(g);
      for (const p of g.problems) console.error(`run ${i + 1}: ${p}`);
      console.log(
        `run ${i + 1} of ${o.runs} done in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
    }
    // The curl -T uploads of both servers side by side, after the rounds.
    rounds.curl = await named("the curl -T pairs", curlPairs(src, o.runs));
    for (const p of rounds.curl.problems) console.error(`curl -T: ${p}`);
    const rows = measures(o, src, rounds, "nginx sendfile");
    printTable(
      `Transfers${o.gateway ? " (gateway class: one core for the service)" : " over loopback"} (MB/s = 10^6 bytes/s)`,
      rows.map(tableRow),
    );
    const missed = rows.filter((m) => verdict(m) === "NO").map((m) => m.measure);
    console.log(allMet(rows) ? "\nevery target met" : `\ntargets not met: ${missed.join("; ")}`);
    if (!allMet(rows)) process.exitCode = 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (o.lists) {
    // BENCH_SCALE (e.g. 0.25) shrinks the list data for a quick look.
    const scale = Number(process.env.BENCH_SCALE ?? 1);
    printTable("Admin lists (parcels and audit rows, scaled)", await lists(scale));
  }
}

void main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
