import { parentPort } from "node:worker_threads";
import { labelChainsInPlace } from "../domain/core-names.js";
import { liveColumns } from "../domain/live-delays.js";
import { MihomoClient } from "./mihomo-client.js";
import { readNeighbourTable } from "../system/neighbours.js";
import { account, vendorsOf } from "./reader-accounting.js";
import type { ReaderFailure, ReaderMessage, ReaderReply, ReaderResult } from "./core-shapes.js";

/** Room for answers that grow a little between reads, in whole MiB. */
function roomFor(length: number): number {
  return Math.ceil((length * 1.25) / 1048576) * 1048576;
}

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
