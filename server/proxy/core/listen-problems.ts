import type { Settings } from "../types.js";
import { listeningPorts } from "./listen-ports.js";
import { PORT_IN_USE } from "./port-check.js";
import type { ListenProblem } from "../../contract/proxy-status.js";

/**
 * A port the running core could not listen on because another program holds it. The core
 * keeps running (its other listeners and the controller work), so nothing fails loudly: the
 * only trace is one line in its log, which this module reads.
 */
export type { ListenProblem };

/** What one log line says about one of the core's listeners. */
export interface ListenLine {
  /** Names the listener across lines (a later line about it replaces an earlier one). */
  id: string;
  listener: "mixed" | "dns";
  protocol: "tcp" | "udp";
  address: string;
  port: number;
  /** The bind failed because another socket holds the address (Linux, macOS or Windows). */
  inUse: boolean;
  ok: boolean;
}

// `host:port` as Go prints it: "127.0.0.1:7890", "[::]:7890", ":7890" (every address).
const ADDR = String.raw`(?<host>\[[^\]]*\]|[^\s\[\]]*):(?<port>\d{1,5})`;
const PROTO = "(?<proto>tcp|udp)";
const IN_USE = /address already in use|only one usage of each socket address/i;

interface Form {
  re: RegExp;
  ok: boolean;
  listener: "mixed" | "dns";
}

/**
 * mihomo's lines about the listeners Gatehouse configures, on success and on failure: the
 * `mixed-port` listener and `listeners:` entries (listener/listener.go, listener/inbound), and
 * the DNS server, whose UDP and TCP sides are separate listeners (dns/server.go; older cores
 * print one unlabelled UDP line).
 */
const FORMS: Form[] = [
  { re: String.raw`Mixed\(http\+socks\) proxy listening at: ${ADDR}`, ok: true, l: "mixed" },
  {
    re: String.raw`Start Mixed\(http\+socks\) server error: listen ${PROTO} ${ADDR}`,
    ok: false,
    l: "mixed",
  },
  {
    re: String.raw`Mixed\(http\+socks\)\[(?<name>[^\]]+)\] proxy listening at: ${ADDR}`,
    ok: true,
    l: "mixed",
  },
  {
    re: String.raw`Listener (?<name>\S+) listen err: listen ${PROTO} ${ADDR}`,
    ok: false,
    l: "mixed",
  },
  {
    re: String.raw`DNS server(?:\((?<label>UDP|TCP)\))? listening at: ${ADDR}`,
    ok: true,
    l: "dns",
  },
  {
    re: String.raw`Start DNS server(?:\((?<label>UDP|TCP)\))? error: listen ${PROTO} ${ADDR}`,
    ok: false,
    l: "dns",
  },
].map((f) => ({ re: new RegExp(f.re), ok: f.ok, listener: f.l as Form["listener"] }));

function hostOf(raw: string): string {
  const host = raw.startsWith("[") ? raw.slice(1, -1) : raw;
  return host === "" || host === "::" || host === "0.0.0.0" ? "*" : host;
}

/**
 * Reads one line of the core's output (logrus text on stdout) or one payload of its log
 * stream; null when it is not about a listener Gatehouse configures.
 */
export function readListenLine(text: string): ListenLine | null {
  for (const form of FORMS) {
    const m = form.re.exec(text);
    const g = m?.groups;
    if (!m || !g) continue;
    // A failure names its protocol ("listen udp ..."); DNS's label names its side (UDP when
    // unlabelled); a mixed listener is named by its TCP side.
    const side = form.listener === "dns" ? "udp" : "tcp";
    const protocol = (g.proto ?? g.label?.toLowerCase() ?? side) as "tcp" | "udp";
    const id =
      form.listener === "dns"
        ? `dns ${g.label?.toLowerCase() ?? protocol}`
        : g.name
          ? `entry ${g.name}`
          : "mixed";
    return {
      id,
      listener: form.listener,
      protocol,
      address: hostOf(g.host),
      port: Number(g.port),
      ok: form.ok,
      inUse: !form.ok && IN_USE.test(text.slice(m.index + m[0].length)),
    };
  }
  return null;
}

/**
 * The state of the core's listeners as its lines tell it, for the current run: the latest line
 * about each listener wins, so a reload that binds a port clears its problem.
 */
export class ListenWatch {
  private readonly latest = new Map<string, ListenLine>();

  /** A new run of the core: what an earlier run said no longer holds. */
  reset(): void {
    this.latest.clear();
  }

  line(text: string): void {
    const said = readListenLine(text);
    if (said) this.latest.set(said.id, said);
  }

  /**
   * The ports another program holds, among those the settings make the core listen on (a
   * problem with a port the settings no longer use, or an address they dropped, is stale).
   */
  problems(settings: Settings | null): ListenProblem[] {
    const wanted = settings ? listeningPorts(settings) : null;
    const out: ListenProblem[] = [];
    for (const l of this.latest.values()) {
      if (!l.inUse) continue;
      const field = l.listener === "mixed" ? "mixedPort" : "dnsPort";
      if (
        wanted &&
        !wanted.some(
          (w) =>
            w.field === field && w.port === l.port && (l.address === "*" || w.host === l.address),
        )
      ) {
        continue;
      }
      out.push({
        code: PORT_IN_USE,
        port: l.port,
        address: l.address,
        listener: l.listener,
        protocol: l.protocol,
      });
    }
    return out.sort((a, b) => a.port - b.port || a.address.localeCompare(b.address));
  }
}
