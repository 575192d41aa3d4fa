import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { Clock } from "../../clock.js";
import type { LineLog } from "../../log.js";
import { problem, type LineProblem } from "../../problem-codes.js";
import { endGroup, signalGroup, spawnInGroup } from "./child-group.js";
import { forgetCorePid, recordCorePid } from "./leftover.js";
import { MINUTE_MS } from "../../contract/time-units.js";

/** One way of running the core: a supervised child process or a systemd unit. */
export interface Supervisor {
  readonly kind: "process" | "systemd";
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Whether the core is up as far as the backend knows; throws when it cannot tell. */
  active(): Promise<boolean>;
  /** The core's last output lines (for error messages); empty when not captured. */
  recentOutput(): string[];
  /** The kept lines the current run printed (since the last start); empty when not captured. */
  runOutput(): string[];
  close(): Promise<void>;
}

/**
 * The core's own errors are the operator's business; its warnings (one per failed dial to a
 * node) and everything else are traffic detail, kept out of the list of recent problems.
 */
function coreLineProblem(line: string): LineProblem | undefined {
  return /\blevel=(error|fatal)\b/.test(line) ? problem("warn", "core.log_error") : undefined;
}

export interface ProcessSupervisorOptions {
  bin: string;
  homeDir: string;
  configFile: string;
  clock: Clock;
  log: LineLog;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A run this long counts as stable and resets the backoff. */
  stableMs?: number;
  stopTimeoutMs?: number;
  /** Runs after each restart the supervisor makes on its own (the core died). */
  onRestarted?: () => Promise<void>;
  /**
   * Runs before a start or restart asked for (not the automatic ones) spawns the core, after
   * the previous run has stopped; a throw cancels the start (the controller port is taken).
   */
  beforeStart?: () => Promise<void>;
  /** Each line the core prints, as it comes (the listen problems are read from them). */
  onLine?: (line: string) => void;
  /** A new run of the core begins (asked for or automatic): its lines follow. */
  onSpawn?: () => void;
}

const KEEP_LINES = 100;

/**
 * Runs `<bin> -d <home> -f <config>` in a process group of its own and restarts it with
 * backoff when it dies. The group keeps the core out of signals meant for the service (a
 * terminal's Ctrl-C reaches the service, which stops the core in order) and lets a stop end
 * everything the core started.
 */
export class ProcessSupervisor implements Supervisor {
  readonly kind = "process" as const;
  private child: ChildProcess | null = null;
  private wanted = false;
  private failures = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly lines: string[] = [];
  /** Lines captured so far, and that count when the current run started. */
  private printed = 0;
  private runStart = 0;
  /** Restarts made after unexpected exits, and the last backoff used (for status and tests). */
  restarts = 0;
  lastDelayMs = 0;

  constructor(private readonly opts: ProcessSupervisorOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  recentOutput(): string[] {
    return [...this.lines];
  }

  runOutput(): string[] {
    const count = Math.min(this.lines.length, this.printed - this.runStart);
    return count > 0 ? this.lines.slice(-count) : [];
  }

  async active(): Promise<boolean> {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    this.wanted = true;
    this.clearTimer();
    if (await this.active()) return;
    try {
      await this.opts.beforeStart?.();
    } catch (err) {
      this.wanted = false;
      throw err;
    }
    await this.spawnChild();
  }

  async stop(): Promise<void> {
    this.wanted = false;
    this.clearTimer();
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    // The core and whatever it started: SIGTERM to its group, SIGKILL after the grace.
    await endGroup(child, this.opts.stopTimeoutMs ?? 5000);
  }

  async restart(): Promise<void> {
    await this.stop();
    this.failures = 0;
    await this.start();
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private capture(stream: NodeJS.ReadableStream | null): void {
    if (!stream) return;
    createInterface({ input: stream }).on("line", (line) => {
      this.lines.push(line);
      this.printed++;
      if (this.lines.length > KEEP_LINES) this.lines.shift();
      this.opts.log(`core: ${line}`, coreLineProblem(line));
      this.opts.onLine?.(line);
    });
  }

  private spawnChild(): Promise<void> {
    const { bin, homeDir, configFile } = this.opts;
    const child = spawnInGroup(bin, ["-d", homeDir, "-f", configFile], {
      cwd: homeDir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    this.startedAt = this.opts.clock.now();
    this.runStart = this.printed;
    this.opts.onSpawn?.();
    this.capture(child.stdout);
    this.capture(child.stderr);
    child.on("exit", (code, signal) => {
      // Nothing the core started outlives it.
      signalGroup(child, "SIGKILL");
      forgetCorePid(homeDir, child.pid);
      this.onExit(child, code, signal);
    });
    return new Promise((resolve, reject) => {
      child.once("spawn", () => {
        // A later run finds (and stops) this core by it if the service dies without stopping it.
        if (child.pid !== undefined) recordCorePid(homeDir, child.pid);
        resolve();
      });
      child.once("error", (err) => {
        if (this.child === child) this.child = null;
        reject(err);
      });
    });
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    if (!this.wanted) return;
    this.opts.log(
      `The proxy core exited unexpectedly (code ${code ?? "-"}, signal ${signal ?? "-"})`,
      problem("error", "core.exited", {
        params: { ...(code === null ? {} : { exit_code: code }), ...(signal ? { signal } : {}) },
      }),
    );
    if (this.opts.clock.now() - this.startedAt >= (this.opts.stableMs ?? MINUTE_MS)) {
      this.failures = 0;
    }
    const base = this.opts.backoffBaseMs ?? 1000;
    const delay = Math.min(this.opts.backoffMaxMs ?? 30_000, base * 2 ** this.failures);
    this.failures++;
    this.lastDelayMs = delay;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.wanted) return;
      this.restarts++;
      this.spawnChild()
        .then(() => this.opts.onRestarted?.())
        .catch((err: unknown) => {
          this.opts.log(
            `Restarting the proxy core failed: ${String(err)}`,
            problem("error", "core.auto_restart_failed"),
          );
        });
    }, delay);
  }
}
