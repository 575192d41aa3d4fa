import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "../../server/proxy/core/leftover.js";
import { openProxyStorage } from "../../server/proxy/store/open-storage.js";

/** Ports this process was handed already: never the same one twice. */
const handedOut = new Set<number>();

/**
 * Where handed-out ports come from: a band below the kernel's ephemeral range. Every listener
 * on port 0 (the services under test, fixtures, the other worker's) and every outgoing
 * connection draws from the ephemeral range, so none of them can take a handed-out port
 * between the hand-out and the program's own listen (two fresh-clone runs failed that way:
 * another worker's listener answered on a "free" controller or mixed port).
 */
function band(): { low: number; high: number } | null {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0],
    );
  } catch {
    // Not Linux: macOS and Windows start their ephemeral ranges at 49152.
    ephemeralLow = 49152;
  }
  const low = 20000;
  const high = Math.min(ephemeralLow, 32768);
  return high - low >= 2000 ? { low, high } : null;
}

/**
 * Processes on this machine (vitest and Playwright workers, a second run beside this one)
 * share the band through one claim file per port, holding the claimer's pid, in the machine's
 * temporary folder (not the run's own, test/scratch-dir-global.ts). A claim whose
 * process has ended is taken over; this process's claims are removed when it exits.
 */
const CLAIMS = join(process.env.GATEHOUSE_MACHINE_TMP ?? tmpdir(), "gatehouse-test-ports");
const claimed: string[] = [];
process.once("exit", () => {
  for (const file of claimed) rmSync(file, { force: true });
});

/** Takes the claim on `port` for this process; false when a live process holds it. */
function claim(port: number): boolean {
  mkdirSync(CLAIMS, { recursive: true, mode: 0o700 });
  const file = join(CLAIMS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o600 });
      claimed.push(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = Number(readFileSync(file, "utf8"));
      if (holder === process.pid || (holder > 0 && processAlive(holder))) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

/** Whether nothing holds `port` on any address (a listen on the wildcard address fails then). */
function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = net.createServer();
    server.once("error", () => done(false));
    server.listen(port, "0.0.0.0", () => server.close(() => done(true)));
  });
}

/** A port from the OS (port 0): where the band cannot be used. */
async function ephemeralPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

/**
 * A port nothing listens on, for a program that must be told its port (the core's
 * controller, mixed and DNS ports): claimed in the band above for the life of this process,
 * so no other test, worker or run on the machine is handed it or takes it by listening on
 * port 0. Never one this process was given before, so two ports asked in a row differ.
 */
export async function freePort(): Promise<number> {
  const range = band();
  for (let tries = 0; tries < 500; tries++) {
    const port = range
      ? range.low + Math.floor(Math.random() * (range.high - range.low))
      : await ephemeralPort();
    if (handedOut.has(port)) continue;
    if (range && !claim(port)) continue;
    if (!(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error("no free port found for the test after 500 tries");
}

/** What holds each refused port shut: kept for the life of the process. */
const holders: net.Socket[] = [];

/**
 * A port on 127.0.0.1 that refuses every connection for as long as this process lives, for a
 * test that wants "nobody there" (an unreachable release server, a core that is not running).
 * A port from `freePort` is not enough: once closed, the OS may hand it to another test's
 * listener on port 0 (the other worker's fake core, say), which then answers instead of
 * refusing. This one is the local end of a connection this process keeps open: nothing
 * listens on it, and while that socket holds it no one else can bind it.
 */
export async function refusedPort(): Promise<number> {
  const server = net.createServer((accepted) => {
    accepted.on("error", () => {});
    holders.push(accepted);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  const client = net.connect(port, "127.0.0.1");
  client.on("error", () => {});
  await new Promise<void>((ok) => client.once("connect", ok));
  // Stop listening at once; the accepted connection lives on (so no awaiting close's callback).
  server.close();
  server.unref();
  client.unref();
  holders.push(client);
  const held = client.localPort;
  if (held === undefined) throw new Error("the holding connection has no local port");
  handedOut.add(held);
  return held;
}

/**
 * Writes free ports into the proxy settings of a data dir before the service opens it, so a
 * core started from it listens where nothing else does (the defaults 7890 and 1053 are often
 * taken: another mihomo or Clash, another test), or the ones given. Answers the ports written.
 */
export async function freeProxyPorts(
  dataDir: string,
  given: { mixedPort?: number } = {},
): Promise<{ mixedPort: number; dnsPort: number }> {
  const ports = { mixedPort: given.mixedPort ?? (await freePort()), dnsPort: await freePort() };
  const { repos } = openProxyStorage(dataDir);
  try {
    repos.saveSettings({ ...repos.getSettings(), ...ports });
  } finally {
    repos.close();
  }
  return ports;
}
