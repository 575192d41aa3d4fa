import dgram from "node:dgram";
import net from "node:net";
import { descendsFrom, ownerOfClientPort } from "./socket-owner.js";

/**
 * The ports a Gatehouse machine is likely to have taken by something else: mihomo's or Clash's
 * mixed, HTTP, SOCKS and redirect ports, its DNS port and controller, and Gatehouse's own
 * default ports. The test runs hold them (`vitest.config.ts`, `playwright.config.ts`), so a
 * test that binds or dials one of them by number fails here, every run, instead of only on the
 * machine of someone who runs a proxy.
 */
export const USUAL_PORTS: readonly number[] = [
  7890, 7891, 7892, 7893, 1053, 9090, 9097, 8000, 8080, 8443,
];

/** Loopback only: a held port is never offered to the LAN. */
const HOSTS = ["127.0.0.1", "::1"];

export interface HeldPorts {
  /** The ports this process holds (the others were already taken, which serves as well). */
  held: number[];
  /** Connections and datagrams that reached a held port, as `port/tcp` or `port/udp`. */
  reached(): string[];
  close(): Promise<void>;
}

/**
 * Holds `ports` on loopback (TCP, and UDP for 1053) the way another program would: it accepts
 * connections, answers any HTTP request with 503 and a proxy's CONNECT with 502, and counts
 * who came. A port that is already in use is left to whoever has it.
 */
export async function holdPorts(ports: readonly number[] = USUAL_PORTS): Promise<HeldPorts> {
  const reached: string[] = [];
  const closers: Array<() => Promise<void>> = [];
  const held = new Set<number>();
  for (const port of ports) {
    for (const host of HOSTS) {
      const server = net.createServer((sock) => {
        // Another run on this machine dialling the same port is not this run's fault.
        const owner = sock.remotePort ? ownerOfClientPort(sock.remotePort) : null;
        if (!owner) reached.push(`${port}/tcp`);
        else if (descendsFrom(owner.pid, process.pid))
          reached.push(`${port}/tcp (from ${owner.command || `pid ${owner.pid}`})`);
        sock.on("error", () => undefined);
        sock.once("data", (chunk: Buffer) => {
          const connect = chunk.toString("latin1").startsWith("CONNECT ");
          const status = connect ? "502 Bad Gateway" : "503 Service Unavailable";
          const body = "This port is held by the Gatehouse test run (another program).\n";
          sock.end(
            `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n` +
              `Connection: close\r\n\r\n${body}`,
          );
        });
        sock.setTimeout(10_000, () => sock.destroy());
      });
      if (await listened(server, port, host)) {
        held.add(port);
        closers.push(() => new Promise<void>((ok) => server.close(() => ok())));
      }
    }
    if (port === 1053) {
      const udp = dgram.createSocket("udp4");
      udp.on("message", () => reached.push(`${port}/udp`));
      const bound = await new Promise<boolean>((ok) => {
        udp.once("error", () => ok(false));
        udp.bind(port, "127.0.0.1", () => ok(true));
      });
      if (bound) closers.push(() => new Promise<void>((ok) => udp.close(() => ok())));
      else udp.close();
    }
  }
  return {
    held: [...held].sort((a, b) => a - b),
    reached: () => [...reached],
    async close() {
      await Promise.all(closers.map((c) => c()));
    },
  };
}

function listened(server: net.Server, port: number, host: string): Promise<boolean> {
  return new Promise((ok) => {
    server.once("error", () => ok(false));
    server.listen({ port, host, exclusive: true }, () => ok(true));
  });
}

/** `GATEHOUSE_HOLD_PORTS=0` turns the holding off (e.g. to see a failure without it). */
export function holdingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GATEHOUSE_HOLD_PORTS !== "0";
}

/** The sentence a test run ends with when a test reached a held port. */
export function reachedProblem(reached: string[]): string | null {
  if (reached.length === 0) return null;
  const counts = new Map<string, number>();
  for (const r of reached) counts.set(r, (counts.get(r) ?? 0) + 1);
  const list = [...counts].map(([p, n]) => `${p} (${n}x)`).join(", ");
  return (
    `A test reached a fixed port held for the run: ${list}. Tests must use free ports ` +
    "(port 0, or ask the OS for one and pass it on)."
  );
}
