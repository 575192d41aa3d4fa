import type { Request } from "express";
import { isIP } from "node:net";

/** One configured entry address (an origin such as `http://192.168.1.20:8000`). */
export interface Entry {
  origin: string;
  protocol: "http:" | "https:";
  /** `host[:port]` as a browser sends it in `Host` (default ports omitted). */
  host: string;
  label: string;
  /**
   * What the address is, so a page can name it in its reader's language: `local` (this
   * computer: 127.0.0.1, ::1, localhost), `lan` (any other IP address) or `host` (a name).
   */
  kind: EntryKind;
  /** The host without port or brackets (`127.0.0.1`, `localhost`, `gw.example`). */
  address: string;
}

export type EntryKind = "local" | "lan" | "host";

function normalizeOrigin(raw: string): URL {
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`entry ${raw} must be http or https`);
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    throw new Error(`entry ${raw} must be an origin (scheme, host and port only)`);
  }
  return url;
}

function kindOf(host: string): EntryKind {
  if (host === "127.0.0.1" || host === "::1" || host === "localhost") return "local";
  return isIP(host) ? "lan" : "host";
}

/** The English label people read (kept as it was for API clients that show it). */
function labelFor(kind: EntryKind, address: string, https: boolean): string {
  const suffix = https ? " (HTTPS)" : "";
  if (kind === "local")
    return `This computer${address === "localhost" ? " (localhost)" : ""}${suffix}`;
  if (kind === "lan") return `LAN ${address}${suffix}`;
  // `<hostname>.local`: the machine's name on the LAN (multicast DNS).
  if (address.endsWith(".local")) return `LAN name ${address}${suffix}`;
  return `${address}${suffix}`;
}

export function parseEntry(raw: string): Entry {
  const url = normalizeOrigin(raw);
  const address = url.hostname.replace(/^\[|\]$/g, "");
  const kind = kindOf(address);
  return {
    origin: url.origin,
    protocol: url.protocol as Entry["protocol"],
    host: url.host.toLowerCase(),
    label: labelFor(kind, address, url.protocol === "https:"),
    kind,
    address,
  };
}

/** The set of entries of one running parcel service, and the request-to-entry rules. */
export class Entries {
  private current: readonly Entry[];

  constructor(origins: string[]) {
    this.current = parseAll(origins);
  }

  /** The entries now; a new array after `replace`, so a caller's copy never changes under it. */
  get list(): readonly Entry[] {
    return this.current;
  }

  /**
   * Puts another set of entries in place at once (the desktop app follows the machine's
   * addresses while running). Every origin is checked first: on any bad one nothing changes.
   */
  replace(origins: string[]): void {
    const next = parseAll(origins);
    if (next.length === 0) throw new Error("a parcel service needs at least one entry address");
    this.current = next;
  }

  get origins(): string[] {
    return this.list.map((e) => e.origin);
  }

  /** Both HTTP and HTTPS entries exist: cookies set over HTTP get the `_http` suffix. */
  get mixed(): boolean {
    return (
      this.list.some((e) => e.protocol === "http:") &&
      this.list.some((e) => e.protocol === "https:")
    );
  }

  /**
   * The entry whose origin equals a header value (`Origin`, `X-Service-Origin`), compared on
   * the parsed origin: scheme and host are case-insensitive and a default port may be written
   * out. Anything that is not a plain http(s) origin (`null`, a path, credentials, garbage)
   * matches nothing.
   */
  byOrigin(origin: string | undefined): Entry | undefined {
    const parsed = parseOriginHeader(origin);
    if (parsed === null) return undefined;
    return this.list.find((e) => e.origin === parsed);
  }

  /** Any entry whose host (host:port) equals the request's `Host`. */
  hostKnown(host: string | undefined): boolean {
    if (!host) return false;
    const h = host.toLowerCase();
    return this.list.some((e) => e.host === h);
  }

  /**
   * The entry a request came through: the one named by a valid `X-Service-Origin`, else the
   * one matching the connection's scheme and `Host`, else the first entry with that host.
   */
  forRequest(req: Request): Entry | undefined {
    const declared = req.get("x-service-origin");
    const fromHeader = this.byOrigin(declared);
    const origin = req.get("origin");
    if (fromHeader && (origin === undefined || this.byOrigin(origin) === fromHeader))
      return fromHeader;
    const host = (req.get("host") ?? "").toLowerCase();
    const protocol = isEncrypted(req) ? "https:" : "http:";
    return (
      this.list.find((e) => e.host === host && e.protocol === protocol) ??
      this.list.find((e) => e.host === host)
    );
  }
}

/** Parsed entries without duplicate origins, in the order given. */
function parseAll(origins: string[]): Entry[] {
  const seen = new Set<string>();
  const list: Entry[] = [];
  for (const raw of origins) {
    const e = parseEntry(raw);
    if (!seen.has(e.origin)) {
      seen.add(e.origin);
      list.push(e);
    }
  }
  return list;
}

/** The serialised origin of an `Origin`-style header value, or null when it is not one. */
function parseOriginHeader(raw: string | undefined): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  // An origin has no path at all; `http://host/` is tolerated, `http://host/x` is not.
  if (url.username || url.password || url.search || url.hash || url.pathname !== "/") return null;
  return url.origin;
}

export function isEncrypted(req: Request): boolean {
  return Boolean((req.socket as { encrypted?: boolean }).encrypted);
}
