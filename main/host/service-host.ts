import { EventEmitter } from "node:events";
import { z } from "zod";
import {
  checkServiceMessage,
  originSchema,
  type CoreStatus,
  type HostMessage,
  type ReadyInfo,
  type ServiceEvent,
  type ServiceMessage,
  type StartErrorCode,
} from "../../server/desktop/protocol.js";
import type { ForkFunction, HostChild } from "./host-child.js";
import type { HostInfo, HostStatus } from "./host-status.js";
import { MINUTE_MS } from "../../server/contract/time-units.js";

export type { FailureCode, HostInfo, HostStatus } from "./host-status.js";

export interface ServiceHostOptions {
  fork: ForkFunction;
  /** The services' entry module (server/desktop-entry). */
  entry: string;
  /** Its command-line arguments (`--data-dir`, ports, `--entry`...). */
  args: readonly string[];
  dataDir: string;
  /** A start that has not said `ready` by then is killed and counts as a crash (30 s). */
  readyTimeoutMs?: number;
  /** First restart delay, doubled after each quick crash up to `maxBackoffMs` (1 s, 30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A run at least this long was healthy: the next crash starts the back-off again (60 s). */
  healthyAfterMs?: number;
  /** Restarts after quick crashes before giving up and saying so (5). */
  maxRestarts?: number;
  /** `stop()` kills a child that has not exited by then (1.5 s) and resolves by `stopLimitMs` (1.8 s). */
  stopKillAfterMs?: number;
  stopLimitMs?: number;
  /** Lines for the app's log; never given a secret. */
  log?: (line: string) => void;
}

interface HostEvents {
  status: [HostStatus];
  /** Whenever anything the window or tray show changes. */
  info: [HostInfo];
  /** A parcel picked up, an upload finished. */
  event: [ServiceEvent];
}

const entriesSchema = z.array(originSchema).min(1).max(64);

/**
 * Runs the services in a child process (a utility process when packaged), waits for
 * `ready`, restarts a child that died with back-off, forwards its events and entries
 * updates, and stops it within 2 s. Electron-free: `fork` is the only link to a process.
 */
export class ServiceHost extends EventEmitter<HostEvents> {
  private args: readonly string[];
  private child: HostChild | null = null;
  /** Bumped per child, so a late callback of an old child changes nothing. */
  private generation = 0;
  private status: HostStatus = { state: "stopped" };
  private ready: ReadyInfo | null = null;
  private core: CoreStatus | null = null;
  private startError: { code: StartErrorCode; message: string } | null = null;
  private readyTimedOut = false;
  private readyAt: number | null = null;
  private quickCrashes = 0;
  private readyTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private entries: string[] | null = null;
  private stopping: Promise<void> | null = null;
  private onChildGone: (() => void) | null = null;

  constructor(private readonly options: ServiceHostOptions) {
    super();
    this.args = options.args;
  }

  /** The current state (see `HostStatus`; holds credentials when ready on a first run). */
  get state(): HostStatus {
    return this.status;
  }

  get info(): HostInfo {
    const s = this.status;
    const r = s.state === "ready" ? this.ready : null;
    return {
      state: s.state,
      dataDir: r?.dataDir ?? this.options.dataDir,
      parcel: r?.parcel
        ? {
            url: r.parcel.url,
            httpsUrl: r.parcel.httpsUrl,
            entries: [...r.parcel.entries],
            adminUser: r.parcel.adminUser,
          }
        : null,
      proxy: r?.proxy ? { url: r.proxy.url } : null,
      core: r ? this.core : null,
      error: s.state === "failed" ? s.message : s.state === "restarting" ? s.reason : null,
      errorCode: s.state === "failed" ? s.code : null,
    };
  }

  /** The services' process id while one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the services unless they run or a restart is already scheduled. */
  start(): void {
    if (this.child || this.restartTimer || this.stopping) return;
    this.quickCrashes = 0;
    this.spawn();
  }

  /**
   * Replaces the parcel service's entry addresses, now and after any restart. Throws for an
   * address that is no http(s) origin, so the caller hears at once.
   */
  setEntries(entries: string[]): void {
    const checked = entriesSchema.safeParse(entries);
    if (!checked.success) throw new Error("entries must be 1 to 64 http(s) origins");
    this.entries = checked.data;
    if (this.status.state === "ready") this.send({ type: "entries", entries: checked.data });
  }

  /**
   * Stops and starts again; with `args`, from now on with those (a settings change), which
   * also drops entries given by `setEntries` (the new arguments say which entries apply).
   */
  /**
   * Arguments for the next start (restarts after a crash included), leaving the running
   * services as they are: e.g. a one-time `--reset-admin-password` is not repeated.
   */
  setArgs(args: readonly string[]): void {
    this.args = args;
  }

  async restart(args?: readonly string[]): Promise<void> {
    await this.stop();
    if (args) {
      this.args = args;
      this.entries = null;
    }
    this.start();
  }

  /** Asks the services to stop; kills them if they have not within the limit. Resolves within 2 s. */
  stop(): Promise<void> {
    this.stopping ??= this.stopNow().finally(() => {
      this.stopping = null;
    });
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    this.clearTimers();
    const child = this.child;
    if (child) {
      const { stopKillAfterMs = 1500, stopLimitMs = 1800 } = this.options;
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => {
          this.log(`the services did not stop within ${stopKillAfterMs} ms; killing them`);
          child.kill();
        }, stopKillAfterMs);
        const limit = setTimeout(done, stopLimitMs);
        function done(): void {
          clearTimeout(kill);
          clearTimeout(limit);
          resolve();
        }
        this.onChildGone = done;
        this.send({ type: "stop" });
      });
      this.onChildGone = null;
      // Still there after the limit: forget it, so its exit (whenever) changes nothing.
      this.generation++;
      this.child = null;
    }
    this.setStatus({ state: "stopped" });
  }

  private spawn(): void {
    this.restartTimer = null;
    const generation = ++this.generation;
    this.startError = null;
    this.readyTimedOut = false;
    this.readyAt = null;
    this.ready = null;
    this.core = null;
    this.setStatus({ state: "starting", attempt: this.quickCrashes });
    let child: HostChild;
    try {
      child = this.options.fork(this.options.entry, this.args);
    } catch (err) {
      this.log(`the services could not be started: ${(err as Error).message}`);
      return this.crashed(null, null);
    }
    this.child = child;
    child.onMessage((raw) => {
      if (generation === this.generation) this.receive(raw);
    });
    child.onExit((code, signal) => {
      if (generation !== this.generation) return;
      this.child = null;
      if (this.readyTimer) clearTimeout(this.readyTimer);
      this.readyTimer = null;
      if (this.onChildGone) return this.onChildGone();
      if (this.startError) {
        const { code: failure, message } = this.startError;
        return this.setStatus({ state: "failed", code: failure, message });
      }
      this.crashed(code, signal);
    });
    const { readyTimeoutMs = 30_000 } = this.options;
    this.readyTimer = setTimeout(() => {
      this.readyTimer = null;
      this.readyTimedOut = true;
      this.log(`the services did not say ready within ${readyTimeoutMs} ms; killing them`);
      child.kill();
    }, readyTimeoutMs);
  }

  private receive(raw: unknown): void {
    const checked = checkServiceMessage(raw);
    if (!checked.ok) return this.log(`ignored a malformed message (${checked.problem})`);
    const message: ServiceMessage = checked.message;
    switch (message.type) {
      case "ready": {
        if (this.readyTimer) clearTimeout(this.readyTimer);
        this.readyTimer = null;
        const info: ReadyInfo = {
          dataDir: message.dataDir,
          parcel: message.parcel,
          proxy: message.proxy,
        };
        this.ready = info;
        this.readyAt = Date.now();
        if (this.entries) this.send({ type: "entries", entries: this.entries });
        return this.setStatus({ state: "ready", info });
      }
      case "status":
        if (this.ready?.parcel && message.entries)
          this.ready = {
            ...this.ready,
            parcel: { ...this.ready.parcel, entries: message.entries },
          };
        this.core = message.core;
        return this.emitInfo();
      case "event":
        this.emit("event", message.event);
        return;
      case "error":
        // The exit that follows reports it; no restart, since a retry would meet the same.
        this.startError = { code: message.code, message: message.message };
        this.log(`the services could not start (${message.code}): ${message.message}`);
        return;
    }
  }

  private crashed(code: number | null, signal: string | null): void {
    const { healthyAfterMs = MINUTE_MS, maxRestarts = 5 } = this.options;
    const { backoffMs = 1000, maxBackoffMs = 30_000 } = this.options;
    if (this.readyAt !== null && Date.now() - this.readyAt >= healthyAfterMs) this.quickCrashes = 0;
    const reason = this.readyTimedOut
      ? "The services did not finish starting in time."
      : `The services stopped unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`}).`;
    this.log(reason);
    this.quickCrashes++;
    if (this.quickCrashes > maxRestarts) {
      return this.setStatus({
        state: "failed",
        code: this.readyTimedOut ? "ready_timeout" : "crashed",
        message: `${reason} They were restarted ${maxRestarts} times and stopped again each time, so Gatehouse gave up.`,
      });
    }
    const delayMs = Math.min(backoffMs * 2 ** (this.quickCrashes - 1), maxBackoffMs);
    this.setStatus({ state: "restarting", attempt: this.quickCrashes, delayMs, reason });
    this.restartTimer = setTimeout(() => this.spawn(), delayMs);
  }

  private send(message: HostMessage): void {
    try {
      this.child?.postMessage(message);
    } catch (err) {
      // A child that is going away; its exit tells the rest.
      this.log(`could not send ${message.type} to the services: ${(err as Error).message}`);
    }
  }

  private clearTimers(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.readyTimer) clearTimeout(this.readyTimer);
    this.restartTimer = null;
    this.readyTimer = null;
  }

  private setStatus(status: HostStatus): void {
    this.status = status;
    this.emit("status", status);
    this.emitInfo();
  }

  private emitInfo(): void {
    this.emit("info", this.info);
  }

  private log(line: string): void {
    (this.options.log ?? ((l: string) => console.error(`gatehouse services: ${l}`)))(line);
  }
}
