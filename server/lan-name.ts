import { Bonjour } from "bonjour-service";
import { lookup } from "node:dns/promises";
import { hostname as osHostname, networkInterfaces } from "node:os";

/**
 * Reachable by name: typing an IP address on a phone is the worst step of the LAN flows.
 * When the machine's `<hostname>.local` already resolves to one of its own LAN addresses
 * (Avahi, Bonjour, Windows' own mDNS answer for it), the parcel service lists
 * `http://<hostname>.local:<port>` among its entry addresses. Beside that, the services are
 * announced with DNS-SD (`_http._tcp`, "Gatehouse on <hostname>") so browsers and apps that
 * browse the network find them. Both are skipped with `--no-mdns`.
 */

type Interfaces = ReturnType<typeof networkInterfaces>;

export interface LanNameOptions {
  hostname?: string;
  interfaces?: () => Interfaces;
  /** Every IPv4 address a name resolves to (the system's resolver: nsswitch, Bonjour, …). */
  resolve?: (name: string) => Promise<string[]>;
  /** A resolver that does not answer in time counts as no answer. */
  timeoutMs?: number;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The machine's name as one DNS label (`vm` of `vm.example.com`), or null when unusable. */
export function hostLabel(name: string = osHostname()): string | null {
  const first = name.trim().toLowerCase().split(".")[0];
  return LABEL.test(first) ? first : null;
}

/** This machine's IPv4 LAN addresses (loopback left out). */
export function lanAddresses(interfaces: Interfaces = networkInterfaces()): string[] {
  return Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((a) => a.family === "IPv4" && !a.internal)
    .map((a) => a.address);
}

async function systemResolve(name: string): Promise<string[]> {
  const found = await lookup(name, { all: true, family: 4 });
  return found.map((a) => a.address);
}

/**
 * `<hostname>.local` when the system resolves it to one of this machine's LAN addresses
 * (so a phone on that LAN will reach this machine by it), else null.
 */
export async function findLanName(options: LanNameOptions = {}): Promise<string | null> {
  const label = hostLabel(options.hostname);
  if (!label) return null;
  const name = `${label}.local`;
  const own = new Set(lanAddresses((options.interfaces ?? networkInterfaces)()));
  if (own.size === 0) return null;
  const resolve = options.resolve ?? systemResolve;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((done) => {
    timer = setTimeout(() => done([]), options.timeoutMs ?? 3000);
  });
  try {
    const found = await Promise.race([resolve(name).catch(() => [] as string[]), late]);
    return found.some((a) => own.has(a)) ? name : null;
  } finally {
    clearTimeout(timer);
  }
}

/** The entry origins of a LAN name for the parcel service's ports. */
export function lanNameEntries(name: string, httpPort: number, httpsPort: number | null): string[] {
  return [
    `http://${name}:${httpPort}`,
    ...(httpsPort === null ? [] : [`https://${name}:${httpsPort}`]),
  ];
}

export interface Announcement {
  /** The DNS-SD instance name, e.g. "Gatehouse on vm". */
  name: string;
  port: number;
  /** A word of what it is, in the TXT record (`service=parcel`). */
  service: string;
}

export interface Advertiser {
  stop(): Promise<void>;
}

/**
 * Announces `_http._tcp` services on every LAN interface's multicast DNS. A socket that
 * cannot be had (port 5353 refused, no multicast route) is said in the log and otherwise
 * ignored: the services work without it.
 */
export function startAdvertiser(
  announcements: Announcement[],
  log: (level: "info" | "warn", message: string) => void,
  hostname: string = osHostname(),
): Advertiser | null {
  const label = hostLabel(hostname);
  if (!label || announcements.length === 0) return null;
  const onError = (err: unknown) =>
    log("warn", `mDNS announcement failed: ${(err as Error)?.message ?? String(err)}`);
  const bonjour = new Bonjour({}, onError);
  // multicast-dns emits "error" (a refused bind) on its socket's emitter, which bonjour-service
  // does not listen to; unheard, it would end the process.
  const socket = (bonjour as unknown as { server?: { mdns?: NodeJS.EventEmitter } }).server?.mdns;
  socket?.on("error", onError);
  socket?.on("warning", () => undefined);
  for (const a of announcements) {
    const service = bonjour.publish({
      name: a.name,
      type: "http",
      port: a.port,
      host: `${label}.local`,
      txt: { path: "/", service: a.service },
      disableIPv6: true,
    });
    service.on("error", onError);
    service.on("up", () => log("info", `Announced "${a.name}" (_http._tcp, port ${a.port})`));
  }
  return {
    stop: () =>
      new Promise<void>((done) => {
        const timer = setTimeout(done, 1000);
        bonjour.unpublishAll(() => {
          bonjour.destroy(() => {
            clearTimeout(timer);
            done();
          });
        });
      }),
  };
}
