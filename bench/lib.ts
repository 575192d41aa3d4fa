import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";

/** Shared benchmark helpers: child servers, RSS sampling, HTTP clients, tables. */

export interface ChildServer {
  proc: ChildProcess;
  url: string;
  output: string[];
  stop(): Promise<void>;
}

/** Spawns a server and waits for a line matching `ready` whose first group is its URL. */
export function startChild(
  cmd: string,
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<ChildServer> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: string[] = [];
    let done = false;
    const onLine = (buf: Buffer): void => {
      for (const line of buf.toString().split("\n")) {
        if (!line) continue;
        output.push(line);
        const m = ready.exec(line);
        if (m && !done) {
          done = true;
          resolve({
            proc,
            url: m[1],
            output,
            stop: () =>
              new Promise<void>((res) => {
                proc.once("exit", () => res());
                proc.kill("SIGTERM");
              }),
          });
        }
      }
    };
    proc.stdout?.on("data", onLine);
    proc.stderr?.on("data", onLine);
    proc.once("exit", (code) => {
      if (!done) reject(new Error(`${cmd} exited with ${code}: ${output.join("\n")}`));
    });
  });
}

/** Resident set size and its high-water mark of a process, in bytes (Linux /proc). */
export function rss(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const get = (key: string): number =>
    Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: get("VmRSS"), hwm: get("VmHWM") };
}

/**
 * Resets a process's RSS high-water mark to its current RSS, so the next phase's peak can be
 * read; answers false where /proc/<pid>/clear_refs cannot be written.
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** A Readable-like generator of `total` bytes built from one repeated random block. */
export function* blocks(total: number, block: Buffer): Generator<Buffer> {
  let left = total;
  while (left > 0) {
    const n = Math.min(left, block.length);
    yield n === block.length ? block : block.subarray(0, n);
    left -= n;
  }
}

export interface RequestResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  ms: number;
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One HTTP request; streams `upload` if given; discards (counts) the response unless `keep`. */
export function request(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    upload?: Iterable<Buffer>;
    keep?: boolean;
    body?: string;
    /** Sees every response chunk (the benchmarks hash what they download). */
    onData?: (chunk: Buffer) => void;
  } = {},
): Promise<RequestResult> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(
      url,
      { method: opts.method ?? "GET", headers: opts.headers, agent },
      (res) => {
        let bytes = 0;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => {
          bytes += c.length;
          opts.onData?.(c);
          if (opts.keep) chunks.push(c);
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes,
            ms: performance.now() - start,
            body: Buffer.concat(chunks),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (opts.body !== undefined) {
      req.end(opts.body);
    } else if (opts.upload) {
      const it = opts.upload[Symbol.iterator]();
      const pump = (): void => {
        for (;;) {
          const next = it.next();
          if (next.done) {
            req.end();
            return;
          }
          if (!req.write(next.value)) {
            req.once("drain", pump);
            return;
          }
        }
      };
      pump();
    } else {
      req.end();
    }
  });
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function mib(bytes: number): string {
  return (bytes / 1048576).toFixed(1);
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals: string[]): string =>
    `| ${vals.map((v, i) => v.padEnd(width[i])).join(" | ")} |`;
  console.log(line(cols));
  console.log(`|${width.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of rows) console.log(line(cols.map((c) => String(r[c]))));
}
