import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { crc32 } from "node:zlib";

/**
 * The CRC-32 of an upload (the ZIP entries need it), computed on a thread of its own instead
 * of the event loop. On the event loop it cost about as much as the sha256 (~2.6 GB/s against
 * ~2 GB/s here) and, with curl's 64 KiB pieces, it was what made an upload slower than a Node
 * server doing the rest of the same work (`npm run bench:transfer`, the curl row). Pieces are
 * copied into 512 KiB batches (one memcpy, far cheaper than the CRC) whose memory is handed to
 * the thread and back without a copy (a few batches per upload, used over and over); the
 * thread starts with the first upload and stops after a minute without one. A process allowed
 * only one processor (a gateway pinned with `taskset`, a container of one CPU) computes it
 * inline: there a thread only adds the copies.
 */
const ENTRY = new URL("./crc-worker.mjs", import.meta.url);

/** What is copied per message: 2,048 messages a GiB, and little memory held per upload. */
const BATCH = 512 * 1024;

/** Batches sent and not yet answered, per stream, past which `update` asks the caller to wait. */
const MAX_IN_FLIGHT = 2;

const IDLE_MS = 60_000;

/** Whether the CRC is worth a thread: another processor can run it beside the event loop. */
export const CRC_ON_THREAD = availableParallelism() > 1;

interface Waiting {
  /** Answered when the thread has taken in this many batches of the stream. */
  batch: number;
  resolve: (crc: number) => void;
  reject: (err: Error) => void;
}

interface StreamState {
  answered: number;
  crc: number;
  waiting: Waiting[];
  /** The thread failed: every answer still to come is this error. */
  error: Error | null;
  /** Batches the thread has handed back, to be filled again (no garbage per batch). */
  spare: ArrayBuffer[];
}

let worker: Worker | null = null;
let idleTimer: NodeJS.Timeout | null = null;
let nextId = 1;
const streams = new Map<number, StreamState>();

function thread(): Worker {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (worker) return worker;
  const w = new Worker(ENTRY);
  w.on("message", (msg: { id: number; crc: number; piece: ArrayBuffer }) => {
    const s = streams.get(msg.id);
    if (!s) return;
    s.answered++;
    s.crc = msg.crc;
    s.spare.push(msg.piece);
    while (s.waiting.length > 0 && s.waiting[0].batch <= s.answered)
      (s.waiting.shift() as Waiting).resolve(s.crc);
  });
  const fail = (err: Error): void => {
    if (worker === w) worker = null;
    for (const s of streams.values()) {
      s.error ??= err;
      for (const x of s.waiting.splice(0)) x.reject(err);
    }
  };
  w.on("error", fail);
  w.on("exit", (code) => fail(new Error(`the CRC thread stopped (exit code ${code})`)));
  worker = w;
  return w;
}

function idle(): void {
  if (streams.size > 0 || !worker) return;
  // Nothing to wait for: the process may end while the thread waits for its minute.
  worker.unref();
  idleTimer ??= setTimeout(() => {
    idleTimer = null;
    const w = worker;
    worker = null;
    if (w && streams.size === 0) void w.terminate();
    else worker = w;
  }, IDLE_MS);
  idleTimer.unref();
}

/** The CRC-32 of one stream of pieces, continuing from `start`. */
export class CrcStream {
  private readonly id = nextId++;
  /** Null when the CRC is computed inline. */
  private readonly w: Worker | null;
  private readonly state: StreamState;
  /** Allocated when a piece arrives: a stalled upload holds no batch. */
  private batch: Buffer | null = null;
  private filled = 0;
  private sent = 0;
  private closed = false;

  constructor(start: number, onThread = CRC_ON_THREAD) {
    this.state = { answered: 0, crc: start, waiting: [], error: null, spare: [] };
    if (!onThread) {
      this.w = null;
      return;
    }
    streams.set(this.id, this.state);
    this.w = thread();
    this.w.ref();
    this.w.postMessage({ id: this.id, start });
  }

  /**
   * Takes in a piece. Answers a promise to wait for before the next piece when the thread is
   * behind (constant memory: at most a few batches in flight), otherwise null.
   */
  update(piece: Buffer): Promise<number> | null {
    if (!this.w) {
      if (!this.closed) this.state.crc = crc32(piece, this.state.crc);
      return null;
    }
    let at = 0;
    while (at < piece.length) {
      if (!this.batch) {
        const spare = this.state.spare.pop();
        this.batch = spare ? Buffer.from(spare) : Buffer.allocUnsafeSlow(BATCH);
      }
      const n = piece.copy(this.batch, this.filled, at);
      this.filled += n;
      at += n;
      if (this.filled === BATCH) this.send();
    }
    if (this.sent - this.state.answered < MAX_IN_FLIGHT) return null;
    return this.answer(this.sent - MAX_IN_FLIGHT + 1);
  }

  /** The CRC-32 of every byte taken in so far. */
  value(): Promise<number> {
    if (this.filled > 0 && !this.closed) this.send();
    return this.answer(this.sent);
  }

  /** Forgets the stream (the thread may stop once no stream is open). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.w) return;
    streams.delete(this.id);
    this.batch = null;
    this.state.spare.length = 0;
    for (const x of this.state.waiting.splice(0)) x.reject(new Error("the CRC stream was closed"));
    this.w.postMessage({ id: this.id, end: true });
    idle();
  }

  private send(): void {
    const piece = (this.batch as Buffer).buffer as ArrayBuffer;
    this.w?.postMessage({ id: this.id, piece, length: this.filled }, [piece]);
    this.sent++;
    this.batch = null;
    this.filled = 0;
  }

  private answer(batch: number): Promise<number> {
    if (this.closed) return Promise.reject(new Error("the CRC stream was closed"));
    if (this.state.error) return Promise.reject(this.state.error);
    if (this.state.answered >= batch) return Promise.resolve(this.state.crc);
    return new Promise((resolve, reject) => this.state.waiting.push({ batch, resolve, reject }));
  }
}
