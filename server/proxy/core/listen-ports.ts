import { createSocket } from "node:dgram";
import { createServer } from "node:net";
import { DomainError } from "../../domain-errors.js";
import type { Settings } from "../types.js";
import { lanListenAddress, LOOPBACK } from "./compile.js";

/** A port the settings make the core listen on, at one address. */
export interface Listening {
  host: string;
  port: number;
  protocol: "tcp" | "udp";
  /** The settings field the port comes from (the console shows the refusal beside it). */
  field: "mixedPort" | "dnsPort";
}

/**
 * Every address and port the core binds for these settings (see compile.ts): the mixed port
 * on loopback and on the LAN address when one is set, and the DNS server (UDP and TCP) on the
 * LAN address, or loopback without one.
 */
export function listeningPorts(settings: Settings): Listening[] {
  const lan = lanListenAddress(settings);
  const out: Listening[] = [
    { host: LOOPBACK, port: settings.mixedPort, protocol: "tcp", field: "mixedPort" },
  ];
  if (lan) out.push({ host: lan, port: settings.mixedPort, protocol: "tcp", field: "mixedPort" });
  const dnsHost = lan ?? LOOPBACK;
  out.push({ host: dnsHost, port: settings.dnsPort, protocol: "udp", field: "dnsPort" });
  out.push({ host: dnsHost, port: settings.dnsPort, protocol: "tcp", field: "dnsPort" });
  return out;
}

/**
 * Whether another socket already holds `host:port`: binds it for a moment, the way the core
 * will. Only "address in use" counts; any other failure (a privileged port, an address this
 * machine does not have) is left for the core and the other checks to report.
 */
export function listenTaken(l: Pick<Listening, "host" | "port" | "protocol">): Promise<boolean> {
  return new Promise((resolve) => {
    const inUse = (err: NodeJS.ErrnoException) => resolve(err.code === "EADDRINUSE");
    if (l.protocol === "udp") {
      const socket = createSocket(l.host.includes(":") ? "udp6" : "udp4");
      socket.once("error", (err) => {
        socket.close();
        inUse(err);
      });
      socket.bind({ port: l.port, address: l.host, exclusive: true }, () =>
        socket.close(() => resolve(false)),
      );
      return;
    }
    const server = createServer();
    server.once("error", inUse);
    server.listen({ port: l.port, host: l.host, exclusive: true }, () =>
      server.close(() => resolve(false)),
    );
  });
}

const key = (l: Listening) => `${l.protocol} ${l.host} ${l.port}`;

/**
 * The first listening port of `next` that another program holds, or null. Ports the current
 * settings already use are not tried: a running core holds them itself, and a save that
 * leaves the port alone is no reason to refuse the other fields.
 */
export async function firstTakenPort(
  next: Settings,
  current: Settings,
  taken: (l: Listening) => Promise<boolean> = listenTaken,
): Promise<Listening | null> {
  const kept = new Set(listeningPorts(current).map(key));
  for (const l of listeningPorts(next)) {
    if (kept.has(key(l))) continue;
    if (await taken(l)) return l;
  }
  return null;
}

/** The refusal for a listening port another program holds (409, with the port named). */
export function listenPortInUse(l: Listening): DomainError {
  return new DomainError(
    "conflict",
    "settings.port_in_use",
    `Port ${l.port} is used by another program; choose another port`,
    { params: { port: l.port, field: l.field, address: l.host } },
  );
}
