import { fork, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type {
  LoadConfig,
  LoadMeasuring,
  LoadResult,
  ServiceReady,
  ServiceStats,
} from "./load-protocol.js";

/** The load benchmark's child processes: starting, asking, stopping; cleanup on any end. */

const tsx = ["--import", "tsx"];

const cleanups: Array<() => Promise<void> | void> = [];
let cleaning: Promise<void> | null = null;

/** Whether the cleanup has begun (after Ctrl-C the children's ends are no finding). */
export const cleaningUp = (): boolean => cleaning !== null;

/** Registers something to undo at the end; the newest runs first. */
export function onCleanup(task: () => Promise<void> | void): void {
  cleanups.push(task);
}

/** Runs every cleanup once, newest first, whatever ended the run. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const task of cleanups.reverse()) {
      try {
        await task();
      } catch (err) {
        console.error(`cleanup: ${String(err)}`);
      }
    }
  })();
  return cleaning;
}

/** Ctrl-C and SIGTERM stop the children and remove the temporary files before exiting. */
export function cleanUpOnSignals(): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    // `on`, not `once`: tsx forwards the terminal's Ctrl-C a second time, which must not end
    // this process before its cleanup is done.
    process.on(signal, () => {
      if (cleaning) return;
      console.error(`\n${signal}: stopping the services and removing the data dir`);
      void cleanup().then(() => process.exit(130));
    });
  }
}

/** Child process ids of `pid` (the fake core under the service), from /proc. */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) =>
        readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean),
      )
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU time (user + system) a process has used, in seconds (Linux /proc, 100 ticks/s). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function exited(proc: ChildProcess, ms: number): Promise<boolean> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(true);
  return new Promise((res) => {
    const timer = setTimeout(() => res(false), ms);
    proc.once("exit", () => {
      clearTimeout(timer);
      res(true);
    });
  });
}

/**
 * Starts the service process (bench/load-service.ts) with the fake core at `coreBin`; resolves
 * with its ready message. Its stdout and stderr lines are collected in `output`.
 */
export function startService(
  args: { dataDir: string; coreBin: string; adminPassword: string; logFile: string },
  output: string[],
): Promise<{ proc: ChildProcess; ready: ServiceReady }> {
  // LOAD_CPU_PROF=<dir> writes a CPU profile of the service process there when it stops.
  const profile = process.env.LOAD_CPU_PROF;
  const proc = fork(
    resolve("bench/load-service.ts"),
    [args.dataDir, args.coreBin, args.adminPassword, args.logFile],
    {
      execArgv: profile ? [...tsx, "--cpu-prof", `--cpu-prof-dir=${resolve(profile)}`] : tsx,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      // The simulator's health checks would add their own load on the controller.
      env: { ...process.env, MIHOMO_SIM_HEALTHCHECK: "0" },
    },
  );
  const keep = (buf: Buffer): void => {
    for (const line of buf.toString().split("\n")) if (line) output.push(line);
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  onCleanup(async () => {
    if (await exited(proc, 0)) return;
    const kids = childrenOf(proc.pid ?? 0);
    proc.send({ kind: "stop" });
    if (await exited(proc, 15_000)) return;
    console.error("the service did not stop in 15 s; killing it and its core");
    for (const kid of kids) {
      try {
        process.kill(kid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    proc.kill("SIGKILL");
    await exited(proc, 5000);
  });
  return new Promise((res, rej) => {
    proc.on("message", (msg: ServiceReady | ServiceStats) => {
      if (msg.kind === "ready") res({ proc, ready: msg });
    });
    proc.once("exit", (code) =>
      rej(new Error(`the service process exited with ${code}:\n${output.join("\n")}`)),
    );
  });
}

/** The service's event-loop figures (null when it does not answer within 5 s). */
export function serviceStats(proc: ChildProcess): Promise<ServiceStats | null> {
  return new Promise((res) => {
    const timer = setTimeout(() => res(null), 5000);
    const on = (msg: ServiceReady | ServiceStats): void => {
      if (msg.kind !== "stats") return;
      clearTimeout(timer);
      proc.off("message", on);
      res(msg);
    };
    proc.on("message", on);
    proc.send({ kind: "stats" });
  });
}

/** Runs the load process with `config`; resolves with its result. */
export function runLoad(config: LoadConfig, onMeasuring: () => void): Promise<LoadResult> {
  const proc = fork(resolve("bench/load-worker.ts"), [], { execArgv: tsx, stdio: "inherit" });
  onCleanup(async () => {
    if (!(await exited(proc, 0))) proc.kill("SIGKILL");
  });
  return new Promise((res, rej) => {
    // Bounded: the clients stop at the deadline; a run far past it has hung.
    const watchdog = setTimeout(
      () => rej(new Error("the load process did not finish in time")),
      (config.seconds + 120) * 1000,
    );
    proc.on("message", (msg: LoadMeasuring | LoadResult) => {
      if (msg.kind === "measuring") return onMeasuring();
      clearTimeout(watchdog);
      res(msg);
    });
    proc.once("exit", (code) => {
      clearTimeout(watchdog);
      rej(new Error(`the load process exited with ${code} before reporting`));
    });
    proc.send(config);
  });
}
