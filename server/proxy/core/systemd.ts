import { runBounded } from "./child-group.js";
import type { Supervisor } from "./supervisor.js";

const UNIT_NAME = /^[A-Za-z0-9@._:-]+\.service$/;

export interface SystemdSupervisorOptions {
  unit: string;
  /** The systemctl executable (tests point it at a fake). */
  systemctl?: string;
  timeoutMs?: number;
}

/** Controls a fixed systemd unit; the unit name comes from options, never from a request. */
export class SystemdSupervisor implements Supervisor {
  readonly kind = "systemd" as const;
  private readonly bin: string;

  constructor(private readonly opts: SystemdSupervisorOptions) {
    if (!UNIT_NAME.test(opts.unit)) throw new Error(`Invalid systemd unit name: ${opts.unit}`);
    this.bin = opts.systemctl ?? "systemctl";
  }

  private async run(verb: string): Promise<{ code: number; output: string }> {
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const r = await runBounded(this.bin, [verb, this.opts.unit], { timeoutMs });
    const output = `${r.stdout}\n${r.stderr}`.trim();
    if (r.error) {
      throw new Error(`systemctl ${verb} failed: ${r.error.message}`, { cause: r.error });
    }
    if (r.timedOut || r.code === null) {
      throw new Error(
        `systemctl ${verb} did not finish within ${Math.ceil(timeoutMs / 1000)} s, so it was stopped`,
      );
    }
    return { code: r.code, output };
  }

  private async must(verb: string): Promise<void> {
    const r = await this.run(verb);
    if (r.code !== 0) {
      throw new Error(
        `systemctl ${verb} ${this.opts.unit} failed: ${r.output || `exit ${r.code}`}`,
      );
    }
  }

  start(): Promise<void> {
    return this.must("start");
  }

  stop(): Promise<void> {
    return this.must("stop");
  }

  restart(): Promise<void> {
    return this.must("restart");
  }

  async active(): Promise<boolean> {
    const r = await this.run("is-active");
    if (r.code === 0) return true;
    // is-active exits 3 (or prints a state) for a unit that exists but is not running.
    if (/\b(inactive|failed|activating|deactivating|unknown)\b/.test(r.output) || r.code === 3) {
      return false;
    }
    throw new Error(
      `systemctl is-active ${this.opts.unit} failed: ${r.output || `exit ${r.code}`}`,
    );
  }

  recentOutput(): string[] {
    return [];
  }

  runOutput(): string[] {
    return [];
  }

  async close(): Promise<void> {
    // The unit outlives the service; closing leaves it as it is.
  }
}
