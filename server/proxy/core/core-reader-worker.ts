import { parentPort } from "node:worker_threads";
import { labelChainsInPlace } from "../domain/core-names.js";
import { liveColumns, type LiveColumns } from "../domain/live-delays.js";
import { MihomoClient } from "./mihomo-client.js";
import { readNeighbourTable, type NeighbourSource } from "../system/neighbours.js";
import { account, vendorsOf, type AccountingReading } from "./reader-accounting.js";

/** Where the core's controller answers, and with which secret. */
export interface ReaderTarget {
  host: string;
  port: number;
  secret: string;
}

/** One read the service asks of the worker. */
export type ReaderJob =
  | {
      kind: "connections";
      target: ReaderTarget;
      timeoutMs: number;
      /** Names the chains' node steps get (`chainLabels`). */
      subscriptions: Array<{ id: string; name: string }>;
      /** Memory to write the answer into, when it is large enough (reused between reads). */
      out: SharedArrayBuffer | null;
    }
  | { kind: "live-nodes"; target: ReaderTarget; timeoutMs: number }
  | { kind: "counters"; target: ReaderTarget; timeoutMs: number }
  /** Bytes per source address since the previous reading of the count named `key`. */
  | { kind: "accounting"; target: ReaderTarget; timeoutMs: number; key: string }
  /** The makers of MAC addresses, from the IEEE registry the worker loads once. */
  | { kind: "vendors"; macs: string[]; timeoutMs: number }
  /**
   * The neighbour table (IP → MAC): Linux's runs `ip -6 neigh`, whose spawn blocks the
   * calling thread for 5-25 ms, so it is read here, not on the service's event loop.
   */
  | { kind: "neighbours"; source: NeighbourSource; timeoutMs: number };

/**
 * What a read gives: the finished JSON answer as UTF-8 bytes (the first `length` of shared
 * memory: the job's own `out`, or a larger one), or the nodes' live columns.
 */
export type ReaderResult =
  | { kind: "connections"; shared: SharedArrayBuffer; length: number }
  | { kind: "live-nodes"; columns: LiveColumns }
  | { kind: "counters"; counters: CoreCounters }
  | { kind: "accounting"; reading: AccountingReading }
  | { kind: "vendors"; vendors: Array<string | null> }
  | { kind: "neighbours"; table: Map<string, string> };

/** The totals and the count of `GET /connections`, without the connections themselves. */
export interface CoreCounters {
  uploadTotal: number;
  downloadTotal: number;
  connections: number;
}

/** Room for answers that grow a little between reads, in whole MiB. */
function roomFor(length: number): number {
  return Math.ceil((length * 1.25) / 1048576) * 1048576;
}

/** The client's error, by its class name, so the service can throw the same class. */
export interface ReaderFailure {
  name: string;
  message: string;
  status?: number;
}

/** A job as the worker gets it: numbered, with the longest answer it may read. */
export type ReaderMessage = ReaderJob & { id: number; maxBytes: number };

export type ReaderReply =
  { id: number; ok: true; result: ReaderResult } | { id: number; ok: false; error: ReaderFailure };

async function run(job: ReaderMessage): Promise<{ result: ReaderResult; transfer: ArrayBuffer[] }> {
  if (job.kind === "vendors") {
    return { result: { kind: "vendors", vendors: await vendorsOf(job.macs) }, transfer: [] };
  }
  if (job.kind === "neighbours") {
    return {
      result: { kind: "neighbours", table: await readNeighbourTable(job.source) },
      transfer: [],
    };
  }
  const client = new MihomoClient({ ...job.target, maxAnswerBytes: job.maxBytes });
  if (job.kind === "accounting") {
    const reading = account(job.key, await client.connections(job.timeoutMs), Date.now());
    return { result: { kind: "accounting", reading }, transfer: [] };
  }
  if (job.kind === "connections") {
    const view = labelChainsInPlace(await client.connections(job.timeoutMs), job.subscriptions);
    // The same text `res.json` would write, into memory the service reuses: a fresh 15 MB
    // buffer per answer would make its thread collect garbage twice a second.
    const text = JSON.stringify(view);
    if (job.out) {
      // A write that stops short of the end (at most 3 bytes of a character left over) wrote
      // everything; one that reaches it may have been cut, and gets larger memory.
      const written = Buffer.from(job.out).write(text);
      if (written < job.out.byteLength - 3) {
        return { result: { kind: "connections", shared: job.out, length: written }, transfer: [] };
      }
    }
    const shared = new SharedArrayBuffer(roomFor(Buffer.byteLength(text)));
    const length = Buffer.from(shared).write(text);
    return { result: { kind: "connections", shared, length }, transfer: [] };
  }
  if (job.kind === "counters") {
    const c = await client.connections(job.timeoutMs);
    const counters = {
      uploadTotal: c.uploadTotal,
      downloadTotal: c.downloadTotal,
      connections: c.connections.length,
    };
    return { result: { kind: "counters", counters }, transfer: [] };
  }
  const columns = liveColumns(await client.proxies(job.timeoutMs));
  return {
    result: { kind: "live-nodes", columns },
    transfer: [columns.delays.buffer as ArrayBuffer, columns.udp.buffer as ArrayBuffer],
  };
}

async function answer(job: ReaderMessage): Promise<void> {
  const port = parentPort;
  if (!port) return;
  try {
    const { result, transfer } = await run(job);
    port.postMessage({ id: job.id, ok: true, result } satisfies ReaderReply, transfer);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    const status = (e as { status?: unknown }).status;
    const error: ReaderFailure = {
      name: e.name,
      message: e.message,
      status: typeof status === "number" ? status : undefined,
    };
    port.postMessage({ id: job.id, ok: false, error } satisfies ReaderReply);
  }
}

// Runs inside the worker thread core-reader-worker.mjs starts (see core-reader.ts); reads
// overlap, each answered by its id.
if (parentPort) {
  parentPort.on("message", (job: ReaderMessage) => void answer(job));
  parentPort.postMessage({ ready: true });
}
