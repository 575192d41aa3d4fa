import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { diskLimit } from "./disk-limit.js";
import { blocks, request, resetPeak, rss, startChild } from "./lib.js";
import { startNginx } from "./nginx.js";
import {
  downloadFile,
  downloadZip,
  pinned,
  publishParcel,
  startGatehouse,
} from "./transfer-gatehouse.js";

/**
 * One round of each side of the transfer benchmark. Every figure is timed on a pass that
 * only counts bytes; the bytes are checked (sha256) on separate, untimed passes, since
 * hashing in the client (about 1.2 GB/s on one core here) would cap the very downloads it
 * measures.
 */

/** What every round moves: the file on disk (for nginx and the disk limit) and its blocks. */
export interface Source {
  size: number;
  /** Size of each of the parallel downloads. */
  mid: number;
  parallel: number;
  /** Directory nginx serves: big.bin (`size` bytes) and mid.bin (`mid` bytes). */
  www: string;
  /** Scratch space of the rounds (data dirs, the disk limit's copy). */
  work: string;
  sha256: string;
  /**
   * curl.bin: `size` bytes of other content (so that no server finds it stored already), the
   * file both servers are sent with `curl -T`; and its sha256.
   */
  curlSha256: string;
  block: Buffer;
  /** Service processes run on this core when set (`taskset`). */
  pin?: number;
}

/** Warm-up size: the memory baseline is read after it (first-request costs are not growth). */
const WARM = 4 * 1048576;
const tsx = ["--import", "tsx"];

async function writeFile(path: string, size: number, block: Buffer): Promise<string> {
  const hash = createHash("sha256");
  const out = createWriteStream(path, { mode: 0o644 });
  const done = new Promise<void>((res, rej) => {
    out.on("error", rej);
    out.on("finish", () => res());
  });
  for (const chunk of blocks(size, block)) {
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  out.end();
  await done;
  return hash.digest("hex");
}

/** Writes the files every round reads; answers the big file's and curl.bin's sha256. */
export async function writeSources(
  src: Omit<Source, "sha256" | "curlSha256">,
): Promise<{ sha256: string; curlSha256: string }> {
  await writeFile(join(src.www, "mid.bin"), src.mid, src.block);
  const other = Buffer.from(src.block).reverse();
  return {
    sha256: await writeFile(join(src.www, "big.bin"), src.size, src.block),
    curlSha256: await writeFile(join(src.www, "curl.bin"), src.size, other),
  };
}

/**
 * Writes every dirty page of the scratch file system out before a timed upload: ext4 commits
 * other files' pending data with an fsync (data=ordered), so without this an upload's fsync
 * would pay for whatever the step before it left unwritten.
 */
function settleDisk(dir: string): void {
  execFileSync("sync", ["-f", dir]);
}

/** The current RSS of a server after its warm-up, with its high-water mark reset to it. */
function settledRss(pid: number): number {
  resetPeak(pid);
  return rss(pid).rss;
}

const parallel = async (n: number, one: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: n }, one));
  return performance.now() - t0;
};

export const PHASES = ["upload", "download", "ZIP download", "32 parallel downloads"] as const;
export type Phase = (typeof PHASES)[number];

export interface GateRound {
  upMs: number;
  downMs: number;
  zipMs: number;
  parMs: number;
  peak: number;
  /** The peak RSS growth over the idle RSS during each part of the round. */
  phases: Record<Phase, number>;
  /** The stored digest, the downloaded file and the ZIP's entry all equal the source. */
  intact: boolean;
  zip64: boolean;
  problems: string[];
}

export async function gatehouseRound(src: Source): Promise<GateRound> {
  const dataDir = mkdtempSync(join(src.work, "gatehouse-"));
  const g = await startGatehouse(dataDir, src.pin);
  try {
    const pid = g.srv.proc.pid ?? 0;
    const warm = await publishParcel(g, WARM, () => blocks(WARM, src.block), src.parallel + 2);
    await Promise.all(Array.from({ length: src.parallel }, () => downloadFile(g, warm)));
    await downloadZip(g, warm);
    const idle = settledRss(pid);
    settleDisk(src.work);
    // Each part's own peak: the high-water mark is read, then reset, after each.
    const phases = {} as Record<Phase, number>;
    const endPhase = (phase: Phase): void => {
      phases[phase] = rss(pid).hwm - idle;
      resetPeak(pid);
    };
    const big = await publishParcel(g, src.size, () => blocks(src.size, src.block), 10);
    endPhase("upload");
    const down = await downloadFile(g, big);
    const checkDown = await downloadFile(g, big, true);
    endPhase("download");
    const zip = await downloadZip(g, big);
    const checkZip = await downloadZip(g, big, true);
    endPhase("ZIP download");
    const mid = await publishParcel(g, src.mid, () => blocks(src.mid, src.block), src.parallel);
    const parMs = await parallel(src.parallel, async () => {
      const r = await downloadFile(g, mid);
      if (r.bytes !== src.mid) throw new Error(`parallel download: ${r.bytes} bytes`);
    });
    endPhase("32 parallel downloads");
    const peak = Math.max(...Object.values(phases));
    const problems: string[] = [];
    if (big.sha256 !== src.sha256) problems.push("the stored sha256 differs from the source's");
    if (down.bytes !== src.size) problems.push(`download: ${down.bytes} of ${src.size} bytes`);
    if (checkDown.sha256 !== src.sha256) problems.push("downloaded bytes differ (sha256)");
    const entry = checkZip.entry;
    if (!entry || entry.sha256 !== src.sha256 || entry.size !== src.size)
      problems.push("the ZIP's entry differs from the source (sha256 or size)");
    if (zip.bytes !== checkZip.bytes) problems.push("the two ZIP downloads differ in length");
    // ZIP64 is needed once the entry or an offset passes 4 GiB - 1; the service must use it.
    if (src.size >= 0xffffffff && !entry?.zip64) problems.push("no ZIP64 records past 4 GiB");
    return {
      upMs: big.upload.ms,
      downMs: down.ms,
      zipMs: zip.ms,
      parMs,
      peak,
      phases,
      intact: problems.length === 0,
      zip64: entry?.zip64 ?? false,
      problems,
    };
  } finally {
    await g.srv.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface NodeRound {
  plainUpMs: number;
  sameWorkUpMs: number;
  /** The same work with the sha256 on a second thread. */
  threadUpMs: number;
  downMs: number;
  peak: number;
}

/** The bare Node server (bench/baseline-server.ts): pipe to disk, and the same-work upload. */
export async function nodeRound(src: Source): Promise<NodeRound> {
  const [cmd, args] = pinned(src.pin, process.execPath, [...tsx, "bench/baseline-server.ts"]);
  const srv = await startChild(cmd, args, /baseline listening on (\S+)/);
  try {
    const pid = srv.proc.pid ?? 0;
    await request(`${srv.url}/warm`, { method: "PUT", upload: blocks(WARM, src.block) });
    await request(`${srv.url}/warm?durable`, { method: "PUT", upload: blocks(WARM, src.block) });
    await Promise.all(Array.from({ length: src.parallel }, () => request(`${srv.url}/warm`)));
    const idle = settledRss(pid);
    settleDisk(src.work);
    const plain = await request(`${srv.url}/big`, {
      method: "PUT",
      upload: blocks(src.size, src.block),
    });
    settleDisk(src.work);
    const same = await request(`${srv.url}/big?durable`, {
      method: "PUT",
      keep: true,
      upload: blocks(src.size, src.block),
    });
    if (same.body.toString() !== src.sha256)
      throw new Error("the same-work Node server hashed other bytes than the source's");
    const down = await request(`${srv.url}/big`);
    if (down.bytes !== src.size) throw new Error(`bare Node download: ${down.bytes} bytes`);
    // After the memory figure: the thread variant copies every piece and is not the baseline.
    const peak = rss(pid).hwm - idle;
    settleDisk(src.work);
    const thread = await request(`${srv.url}/big?durable&thread`, {
      method: "PUT",
      keep: true,
      upload: blocks(src.size, src.block),
    });
    if (thread.body.toString() !== src.sha256)
      throw new Error("the hashing thread of the Node server hashed other bytes than the source's");
    return {
      plainUpMs: plain.ms,
      sameWorkUpMs: same.ms,
      threadUpMs: thread.ms,
      downMs: down.ms,
      peak,
    };
  } finally {
    await srv.stop();
  }
}

export interface NginxRound {
  downMs: number;
  parMs: number;
}

export async function nginxRound(bin: string, src: Source): Promise<NginxRound> {
  const prefix = mkdtempSync(join(src.work, "nginx-"));
  const n = await startNginx(bin, prefix, src.www, src.pin);
  try {
    await request(`${n.url}/mid.bin`);
    const down = await request(`${n.url}/big.bin`);
    if (down.status !== 200 || down.bytes !== src.size)
      throw new Error(`nginx download: ${down.status}, ${down.bytes} bytes`);
    const parMs = await parallel(src.parallel, async () => {
      const r = await request(`${n.url}/mid.bin`);
      if (r.bytes !== src.mid) throw new Error(`nginx parallel download: ${r.bytes} bytes`);
    });
    return { downMs: down.ms, parMs };
  } finally {
    await n.stop();
    rmSync(prefix, { recursive: true, force: true });
  }
}

/** The machine's limit for the upload's work (read + sha256 + write + fsync, one process). */
export async function diskRound(src: Source): Promise<number> {
  settleDisk(src.work);
  const r = await diskLimit(join(src.www, "big.bin"), join(src.work, "disk-limit.bin"));
  if (r.sha256 !== src.sha256) throw new Error("the disk limit read other bytes than the source's");
  return r.ms;
}
