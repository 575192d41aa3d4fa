import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";

/**
 * nginx as the download reference: Debian's nginx-light serving one directory with
 * `sendfile`, started on a free loopback port from a generated configuration in a temporary
 * prefix (never the system service), stopped by its pid.
 */

const CANDIDATES = ["/usr/sbin/nginx", "/usr/bin/nginx"];

function nginxPath(): string | undefined {
  return CANDIDATES.find((p) => existsSync(p));
}

/**
 * The nginx executable, installing Debian's `nginx-light` with apt-get first when there is
 * none (this needs root, as on CI). The package's own start of the system service is
 * refused for the install with a policy-rc.d, so nothing ends up listening on port 80.
 * Throws a sentence when nginx cannot be had.
 */
export function ensureNginx(log: (line: string) => void): string {
  const found = nginxPath();
  if (found) return found;
  if (process.getuid?.() !== 0)
    throw new Error(
      "nginx is not installed and this user cannot install it: run `sudo apt-get install -y nginx-light` and start the benchmark again",
    );
  log("set-up: nginx is missing; installing Debian's nginx-light with apt-get (once)");
  const policy = "/usr/sbin/policy-rc.d";
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, "#!/bin/sh\nexit 101\n", { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const install = (): boolean =>
      spawnSync("apt-get", ["install", "-y", "-q", "nginx-light"], { stdio: "inherit", env })
        .status === 0;
    if (!install()) {
      spawnSync("apt-get", ["update", "-q"], { stdio: "inherit", env });
      if (!install()) throw new Error("apt-get could not install nginx-light");
    }
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
  const installed = nginxPath();
  if (!installed) throw new Error("nginx-light was installed but no nginx executable was found");
  return installed;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** The configuration: one worker, sendfile, no access log, every path inside `prefix`. */
export function nginxConfig(prefix: string, root: string, port: number): string {
  return `worker_processes 1;
daemon off;
${process.getuid?.() === 0 ? "user root;" : ""}
pid ${join(prefix, "nginx.pid")};
error_log ${join(prefix, "error.log")} warn;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  default_type application/octet-stream;
  client_body_temp_path ${join(prefix, "body")};
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { }
  }
}
`;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

export interface Nginx {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts nginx serving `root` (files at `<url>/<name>`); `pin` runs it under `taskset` on
 * that core. Resolves once the port accepts connections.
 */
export async function startNginx(
  bin: string,
  prefix: string,
  root: string,
  pin?: number,
): Promise<Nginx> {
  mkdirSync(join(prefix, "body"), { recursive: true });
  const port = await freePort();
  const conf = join(prefix, "nginx.conf");
  writeFileSync(conf, nginxConfig(prefix, root, port));
  const args = ["-p", prefix, "-c", conf, "-e", join(prefix, "error.log")];
  const proc: ChildProcess =
    pin === undefined
      ? spawn(bin, args, { stdio: "ignore" })
      : spawn("taskset", ["-c", String(pin), bin, ...args], { stdio: "ignore" });
  let exited = false;
  const gone = new Promise<void>((res) =>
    proc.once("exit", () => {
      exited = true;
      res();
    }),
  );
  proc.on("error", () => undefined);
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (exited || Date.now() > deadline) {
      proc.kill("SIGKILL");
      let log = "";
      try {
        log = execFileSync("tail", ["-5", join(prefix, "error.log")]).toString();
      } catch {
        // no log written
      }
      throw new Error(`nginx did not start on port ${port}: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid ?? 0,
    stop: async () => {
      if (!exited) proc.kill("SIGTERM");
      await gone;
    },
  };
}
