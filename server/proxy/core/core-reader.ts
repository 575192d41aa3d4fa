import { Worker } from "node:worker_threads";
import { CoreApiError, CoreTimeoutError, CoreUnreachableError } from "./errors.js";
import type {
  ReaderFailure,
  ReaderJob,
  ReaderMessage,
  ReaderReply,
  ReaderResult,
} from "./core-shapes.js";
import { MINUTE_MS } from "../../contract/time-units.js";
import type { NeighbourSource } from "../system/neighbours.js";

export type { ReaderJob, ReaderResult } from "./core-shapes.js";

/** A JSON answer in the reader's reusable memory: call `release` once it has been sent. */
export interface LentBody {
  body: Buffer;
  release(): void;
}

/** Answer buffers kept for reuse (one per console polling the connections, about). */
const SPARE_BODIES = 2;

/** Heap the reader may use: the core's answer for 100,000 connections (~50 MB) fits. */
export const READER_MEMORY_MB = 512;
/**
 * The longest answer read: about 80,000 connections. A thread that runs out of memory while
 * it reads is stopped on its own, but one large allocation past the limit (the text of an
 * answer of hundreds of MB) would end the whole process.
 */
export const READER_MAX_ANSWER_MB = 64;
/**
 * Room for new objects: an answer makes ~100 MB of them that all live until it is written,
 * and V8's default (16 MB) copies them over and over; this takes a read of 20,000
 * connections from ~225 to ~180 ms here.
 */
const YOUNG_GENERATION_MB = 64;

export interface CoreReaderOptions {
  /** Old-generation heap limit of the worker in MB (default 512). */
  memoryMb?: number;
  /** Longer answers of the core are refused unread (default 64 MB). */
  maxAnswerMb?: number;
  /** The worker is stopped after this long without work (default 60 s). */
  idleMs?: number;
  /** How long the worker may take to load (default 30 s). */
  startMs?: number;
  /**
   * Time on top of a read's own deadline before the worker counts as stuck and is replaced
   * (default 5 s): reading the answer itself should take a fraction of that.
   */
  graceMs?: number;
}

/** The reader itself failed (it ran out of memory, crashed or hung); not the core's fault. */
export class CoreReaderFault extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CoreReaderFault";
  }
}

const ENTRY = new URL("./core-reader-worker.mjs", import.meta.url);

interface Pending {
  resolve(result: ReaderResult): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** One worker with the reads it has; a worker that failed keeps its fault. */
interface Slot {
  worker: Worker;
  ready: Promise<Worker>;
  pending: Map<number, Pending>;
  fault: Error | null;
  /** Fails `ready` (a worker that never loaded). */
  fail(err: Error): void;
}

/** The core's own error, as the client in the worker threw it. */
function revive(failure: ReaderFailure): Error {
  switch (failure.name) {
    case "CoreApiError":
      return new CoreApiError(failure.status ?? 0, failure.message);
    case "CoreTimeoutError":
      return new CoreTimeoutError(failure.message);
    case "CoreUnreachableError":
      return new CoreUnreachableError(failure.message);
    default:
      return new CoreReaderFault(failure.message);
  }
}

/**
 * Reads the core's big answers (`/connections` with tens of thousands of entries, `/proxies`
 * with tens of thousands of nodes: megabytes of JSON) in one long-lived worker thread, so
 * that parsing, relabelling and writing them never holds up the event loop the services
 * answer on. The worker fetches, parses and prepares; what comes back is either the finished
 * JSON answer as bytes (handed over, not copied) or compact columns.
 *
 * Several reads may run at once in the one worker (their fetches overlap). A worker that
 * crashes, runs out of memory or hangs fails the reads it had and is replaced by the next
 * read; an idle worker never keeps the process alive and stops after a while.
 */
export class CoreReader {
  private readonly memoryMb: number;
  private readonly maxBytes: number;
  private readonly idleMs: number;
  private readonly startMs: number;
  private readonly graceMs: number;
  private slot: Slot | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private nextId = 1;
  /** Shared memory answers were written into, free for the next ones. */
  private readonly spare: SharedArrayBuffer[] = [];

  constructor(options: CoreReaderOptions = {}) {
    this.memoryMb = options.memoryMb ?? READER_MEMORY_MB;
    this.maxBytes = (options.maxAnswerMb ?? READER_MAX_ANSWER_MB) * 1048576;
    this.idleMs = options.idleMs ?? MINUTE_MS;
    this.startMs = options.startMs ?? 30_000;
    this.graceMs = options.graceMs ?? 5000;
  }

  /** Runs one read; rejects with the core's error (as the client would) or a CoreReaderFault. */
  async read(job: ReaderJob): Promise<ReaderResult> {
    this.slot ??= this.start();
    const slot = this.slot;
    const worker = await slot.ready;
    if (slot.fault) throw slot.fault;
    const id = this.nextId++;
    return new Promise<ReaderResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stop(slot, new CoreReaderFault("The core reader did not finish in time"));
      }, job.timeoutMs + this.graceMs);
      slot.pending.set(id, { resolve, reject, timer });
      this.busy(slot);
      worker.postMessage({ ...job, id, maxBytes: this.maxBytes } satisfies ReaderMessage);
    });
  }

  /**
   * The core's connections as the finished JSON answer, written into shared memory that is
   * used again once released: receiving a fresh buffer of megabytes for every answer would
   * make the service's thread collect garbage (tens of ms each time) twice a second.
   */
  async readConnections(
    job: Omit<Extract<ReaderJob, { kind: "connections" }>, "out">,
  ): Promise<LentBody> {
    const out = this.spare.pop() ?? null;
    let result: ReaderResult;
    try {
      result = await this.read({ ...job, out });
    } catch (err) {
      if (out) this.keep(out);
      throw err;
    }
    if (result.kind !== "connections")
      throw new CoreReaderFault("The reader answered another read");
    const { shared, length } = result;
    let lent = true;
    return {
      body: Buffer.from(shared, 0, length),
      release: () => {
        if (!lent) return;
        lent = false;
        this.keep(shared);
      },
    };
  }

  private keep(memory: SharedArrayBuffer): void {
    if (this.spare.length < SPARE_BODIES) this.spare.push(memory);
  }

  /** Stops the worker; reads in flight fail. A later read starts a new one. */
  async close(): Promise<void> {
    // Idle or stopped, the memory kept for answers goes too.
    this.spare.length = 0;
    const slot = this.slot;
    if (!slot) return;
    this.stop(slot, new CoreReaderFault("The core reader has been stopped"));
    await slot.worker.terminate();
  }

  private start(): Slot {
    const worker = new Worker(ENTRY, {
      resourceLimits: {
        maxOldGenerationSizeMb: this.memoryMb,
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    let loaded: (w: Worker) => void = () => undefined;
    let failed: (err: Error) => void = () => undefined;
    const ready = new Promise<Worker>((resolve, reject) => {
      loaded = resolve;
      failed = reject;
    });
    // A failed start is not kept: the next read starts another worker.
    ready.catch(() => undefined);
    const slot: Slot = { worker, ready, pending: new Map(), fault: null, fail: failed };
    const timer = setTimeout(
      () => this.stop(slot, new CoreReaderFault("The core reader took too long to start")),
      this.startMs,
    );
    worker.on("message", (msg: ReaderReply | { ready: true }) => {
      if ("ready" in msg) {
        clearTimeout(timer);
        loaded(worker);
      } else this.settle(slot, msg);
    });
    // For the worker's whole life: a fault ends the reads it had, never the service.
    worker.on("error", (err: Error) => {
      clearTimeout(timer);
      this.stop(slot, readerFault(err, this.memoryMb));
    });
    worker.on("exit", () => {
      clearTimeout(timer);
      this.stop(slot, new CoreReaderFault("The core reader stopped before it answered"));
    });
    return slot;
  }

  private settle(slot: Slot, reply: ReaderReply): void {
    const entry = slot.pending.get(reply.id);
    if (!entry) return;
    slot.pending.delete(reply.id);
    clearTimeout(entry.timer);
    if (reply.ok) entry.resolve(reply.result);
    else entry.reject(revive(reply.error));
    this.busy(slot);
  }

  /** Keeps the process alive while reads are in flight; counts the idle time otherwise. */
  private busy(slot: Slot): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (slot.pending.size > 0) {
      slot.worker.ref();
      return;
    }
    slot.worker.unref();
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs);
    this.idleTimer.unref();
  }

  /** Ends a worker once: every read it had fails with `fault`; the next read starts anew. */
  private stop(slot: Slot, fault: Error): void {
    if (slot.fault) return;
    slot.fault = fault;
    slot.fail(fault);
    if (this.slot === slot) {
      this.slot = null;
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    for (const entry of slot.pending.values()) {
      clearTimeout(entry.timer);
      entry.reject(fault);
    }
    slot.pending.clear();
    void slot.worker.terminate();
  }
}

function readerFault(err: Error, memoryMb: number): CoreReaderFault {
  if ((err as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY") {
    return new CoreReaderFault(
      `The core's answer needs more than ${memoryMb} MB of memory to read`,
      { cause: err },
    );
  }
  return new CoreReaderFault(`The core reader failed: ${err.message}`, { cause: err });
}

/** The makers of MAC addresses (null where the registry names none), read in the worker. */
export async function lookupVendors(
  macs: readonly string[],
  reader: CoreReader = sharedCoreReader(),
): Promise<Array<string | null>> {
  const result = await reader.read({ kind: "vendors", macs: [...macs], timeoutMs: 30_000 });
  if (result.kind !== "vendors") throw new CoreReaderFault("The reader answered another read");
  return result.vendors;
}

/** The neighbour table of `source`, read in the worker (Linux's spawns `ip`). */
export async function lookupNeighbours(
  source: NeighbourSource,
  reader: CoreReader = sharedCoreReader(),
): Promise<Map<string, string>> {
  const result = await reader.read({ kind: "neighbours", source, timeoutMs: 10_000 });
  if (result.kind !== "neighbours") throw new CoreReaderFault("The reader answered another read");
  return result.table;
}

let shared: CoreReader | null = null;

/** The process's one reader (both services and every core client share it). */
export function sharedCoreReader(): CoreReader {
  shared ??= new CoreReader();
  return shared;
}
