import { Worker } from "node:worker_threads";
import { SubscriptionError } from "./errors.js";
import type { ParsedSubscription } from "./parse.js";
import type { ParseReply, ParseRequest } from "./parse-worker.js";
import { nodesFromJson } from "../store/nodes-json.js";
import { MINUTE_MS } from "../../contract/time-units.js";

/** How long one document may take to read before its worker is stopped. */
export const PARSE_BUDGET_MS = 10_000;
/** Heap a worker may use: a 16 MiB document read by the general YAML library fits. */
export const PARSE_MEMORY_MB = 512;

export interface ParsePoolOptions {
  /** Time for one parse, counted from when its worker has the document (default 10 s). */
  budgetMs?: number;
  /** Old-generation heap limit of each worker in MB (default 512). */
  memoryMb?: number;
  /**
   * Parses that run at the same time; more wait their turn (default 1: a gateway has little
   * memory to spare, and the scheduler refreshes one subscription at a time anyway).
   */
  maxWorkers?: number;
  /** An idle worker is kept this long for the next refresh, then stopped (default 60 s). */
  idleMs?: number;
  /** How long a worker may take to load the parser (default 30 s). */
  startMs?: number;
}

const ENTRY = new URL("./parse-worker.mjs", import.meta.url);

function seconds(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

interface Job {
  body: Buffer | string;
  resolve(result: ParsedSubscription): void;
  reject(err: Error): void;
}

interface Idle {
  worker: Worker;
  timer: NodeJS.Timeout;
}

/**
 * Reads subscription documents in worker threads, so that no document, however hostile,
 * holds up the event loop the services answer on. A parse that runs past its budget has its
 * worker terminated and fails with a SubscriptionError; so does one that runs out of memory.
 * Loaded workers are kept a while for the next refresh (a 10,000-node feed would otherwise
 * pay the loading again) and never keep the process alive while idle.
 */
export class ParsePool {
  private readonly budgetMs: number;
  private readonly memoryMb: number;
  private readonly maxWorkers: number;
  private readonly idleMs: number;
  private readonly startMs: number;
  private readonly queue: Job[] = [];
  private readonly idle: Idle[] = [];
  private readonly active = new Set<Worker>();
  private running = 0;
  private nextId = 1;
  private closed = false;

  constructor(options: ParsePoolOptions = {}) {
    this.budgetMs = options.budgetMs ?? PARSE_BUDGET_MS;
    this.memoryMb = options.memoryMb ?? PARSE_MEMORY_MB;
    this.maxWorkers = Math.max(1, options.maxWorkers ?? 1);
    this.idleMs = options.idleMs ?? MINUTE_MS;
    this.startMs = options.startMs ?? 30_000;
  }

  /** Parses like parseSubscription, in a worker; rejects with its SubscriptionError. */
  parse(body: Buffer | string): Promise<ParsedSubscription> {
    if (this.closed) return Promise.reject(stopped());
    return new Promise((resolve, reject) => {
      this.queue.push({ body, resolve, reject });
      this.pump();
    });
  }

  /** Stops every worker; parses in flight fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(stopped());
    const workers = [...this.active, ...this.idle.map((i) => i.worker)];
    for (const i of this.idle.splice(0)) clearTimeout(i.timer);
    await Promise.allSettled(workers.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.running < this.maxWorkers && this.queue.length > 0) {
      const job = this.queue.shift() as Job;
      this.running++;
      void this.run(job).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async run(job: Job): Promise<void> {
    let worker: Worker;
    try {
      worker = this.takeIdle() ?? (await this.start());
    } catch (err) {
      job.reject(this.closed ? stopped() : err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (this.closed) {
      void worker.terminate();
      job.reject(stopped());
      return;
    }
    worker.ref(); // a parse in flight keeps the process alive; an idle worker does not
    this.active.add(worker);
    const outcome = await this.exchange(worker, job.body);
    this.active.delete(worker);
    if (!("reply" in outcome)) {
      void worker.terminate();
      job.reject(this.closed ? stopped() : outcome.error);
      return;
    }
    if (this.closed) void worker.terminate();
    else this.keepIdle(worker);
    const reply = outcome.reply;
    if (reply.ok) {
      const { nodesJson, ...rest } = reply.result;
      // The text is kept with the nodes: the snapshot and the core's provider file are it.
      job.resolve({ ...rest, nodes: nodesFromJson(nodesJson) });
    } else
      job.reject(
        reply.code
          ? SubscriptionError.revive(reply.code, reply.message, reply.params)
          : new Error(reply.message),
      );
  }

  /** Sends one document and waits for the answer, the budget, or the worker's end. */
  private exchange(
    worker: Worker,
    body: Buffer | string,
  ): Promise<{ reply: ParseReply } | { error: Error }> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const settle = (outcome: { reply: ParseReply } | { error: Error }): void => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        resolve(outcome);
      };
      const onMessage = (reply: ParseReply): void => {
        if (reply.id === id) settle({ reply });
      };
      const onError = (err: Error): void => settle({ error: workerFault(err, this.memoryMb) });
      const onExit = (): void =>
        settle({ error: new Error("The subscription reader stopped before it answered") });
      const timer = setTimeout(() => {
        const budget = seconds(this.budgetMs);
        settle({
          error: new SubscriptionError(
            "subscription.read_timeout",
            `The subscription took longer than ${budget} to read; reading it was stopped`,
            { params: { seconds: this.budgetMs / 1000 } },
          ),
        });
      }, this.budgetMs);
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      const request: ParseRequest = { id, body };
      worker.postMessage(request);
    });
  }

  /** A new worker once it has loaded the parser. */
  private start(): Promise<Worker> {
    const worker = new Worker(ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb },
      stdout: false,
      stderr: false,
    });
    this.active.add(worker); // close() stops it while it loads, too
    // For the worker's whole life: its faults are reported through the parse they end.
    worker.on("error", () => undefined);
    worker.on("exit", () => this.dropIdle(worker));
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.active.delete(worker);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
      };
      const fail = (err: Error): void => {
        done();
        void worker.terminate();
        reject(err);
      };
      const onMessage = (msg: { ready?: boolean }): void => {
        if (!msg.ready) return;
        done();
        resolve(worker);
      };
      const onError = (err: Error): void =>
        fail(new Error(`The subscription reader could not be started: ${err.message}`));
      const onExit = (): void => fail(new Error("The subscription reader could not be started"));
      const timer = setTimeout(
        () => fail(new Error("The subscription reader took too long to start")),
        this.startMs,
      );
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
    });
  }

  private takeIdle(): Worker | null {
    const entry = this.idle.pop();
    if (!entry) return null;
    clearTimeout(entry.timer);
    return entry.worker;
  }

  private dropIdle(worker: Worker): void {
    const at = this.idle.findIndex((i) => i.worker === worker);
    if (at < 0) return;
    const [entry] = this.idle.splice(at, 1);
    if (entry) clearTimeout(entry.timer);
  }

  private keepIdle(worker: Worker): void {
    worker.unref();
    const timer = setTimeout(() => {
      this.dropIdle(worker);
      void worker.terminate();
    }, this.idleMs);
    timer.unref();
    this.idle.push({ worker, timer });
  }
}

function stopped(): Error {
  return new Error("The subscription reader has been stopped");
}

function workerFault(err: Error, memoryMb: number): Error {
  if ((err as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY") {
    return new SubscriptionError(
      "subscription.read_memory",
      `The subscription needs more than ${memoryMb} MB of memory to read; it was not read`,
      { params: { limit: memoryMb } },
    );
  }
  return new Error(`The subscription reader failed: ${err.message}`);
}
