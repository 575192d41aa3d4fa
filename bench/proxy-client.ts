import { fork, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { request } from "./lib.js";
import type { BenchRequest, ServiceMessage } from "./proxy-service.js";

/** The proxy service in its own process (bench/proxy-service.ts), driven over IPC. */
export interface ServiceProcess {
  port: number;
  /** The service process's id (for its CPU time). */
  pid: number;
  setupToken: string | null;
  /** The worst event-loop delay since the last call (ms), and its 99th percentile. */
  /** With the longest synchronous step of the traffic counting since then (ms). */
  loop(): Promise<{ maxMs: number; p99Ms: number; countingMs: number }>;
  stop(): Promise<void>;
}

export function startService(
  dataDir: string,
  coreBin: string,
  controllerPort: number,
): Promise<ServiceProcess> {
  const child: ChildProcess = fork(
    resolve("bench/proxy-service.ts"),
    [dataDir, coreBin, String(controllerPort)],
    {
      // BENCH_PROFILE=<dir> writes the service's CPU profile there (`--cpu-prof`).
      execArgv: [
        "--import",
        "tsx",
        ...(process.env.BENCH_PROFILE
          ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
          : []),
      ],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const ask = (msg: BenchRequest): void => void child.send(msg);
  const next = <T extends ServiceMessage["type"]>(
    type: T,
  ): Promise<Extract<ServiceMessage, { type: T }>> =>
    new Promise((res, rej) => {
      const onMessage = (msg: ServiceMessage): void => {
        if (msg.type !== type) return;
        child.off("exit", onExit);
        child.off("message", onMessage);
        res(msg as Extract<ServiceMessage, { type: T }>);
      };
      const onExit = (code: number | null): void => {
        child.off("message", onMessage);
        rej(new Error(`the service process exited (${code})`));
      };
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  return next("ready").then((ready) => ({
    port: ready.port,
    pid: child.pid ?? -1,
    setupToken: ready.setupToken,
    loop: async () => {
      const answer = next("loop");
      ask({ type: "loop" });
      const { maxMs, p99Ms, countingMs } = await answer;
      return { maxMs, p99Ms, countingMs };
    },
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.once("exit", () => res());
        ask({ type: "stop" });
        // A service that does not close in time is ended.
        setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
      }),
  }));
}

export interface Timed {
  status: number;
  /** From sending the request to its last byte received. */
  ms: number;
  body: Buffer;
}

/** A signed-in client of the console's API (session cookie, CSRF token, same origin). */
export class ApiClient {
  private cookie = "";
  private csrf = "";
  private readonly base: string;
  private readonly origin: string;

  constructor(port: number) {
    this.base = `http://127.0.0.1:${port}/api/v1`;
    this.origin = `http://127.0.0.1:${port}`;
  }

  /** One request, timed to its last byte; the body is kept, not parsed. */
  async timed(method: string, path: string, body?: unknown): Promise<Timed> {
    const r = await request(`${this.base}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        cookie: this.cookie,
        "x-csrf-token": this.csrf,
        origin: this.origin,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      keep: true,
    });
    const set = r.headers["set-cookie"];
    if (set?.[0]) this.cookie = set[0].split(";")[0];
    return { status: r.status, ms: r.ms, body: r.body };
  }

  /** A request whose JSON answer is wanted; anything but 2xx throws. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.timed(method, path, body);
    const text = r.body.toString();
    if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  /** The session cookie as a `Cookie` header's value. */
  get cookieHeader(): string {
    return this.cookie;
  }

  async signIn(setupToken: string | null): Promise<void> {
    const setup = await this.call<{ csrf: string }>("POST", "/auth/setup", {
      token: setupToken,
      password: "bench-password-123",
    });
    this.csrf = setup.csrf;
  }
}

/** The core's own controller, for the references measured in the same run. */
export function coreRequest(
  controllerPort: number,
  secret: string,
  path: string,
  body?: unknown,
): Promise<Timed> {
  return request(`http://127.0.0.1:${controllerPort}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    keep: true,
  }).then((r) => ({ status: r.status, ms: r.ms, body: r.body }));
}
