import { createServer } from "node:net";
import { DomainError } from "../../domain-errors.js";

/** Stable code of "another program holds the controller port" (the console translates it). */
export const PORT_IN_USE = "core.port_in_use" as const;

/** The sentence for a controller port another program holds. */
export function portInUseMessage(port: number): string {
  return `Port ${port} is used by another program; stop that program or start Gatehouse with --core-controller-port set to a free port`;
}

export function portInUseError(port: number, cause?: unknown): DomainError {
  return new DomainError("invalid", PORT_IN_USE, portInUseMessage(port), {
    params: { port },
    cause,
  });
}

/**
 * Whether something already listens on `host:port`: binds it for a moment, the way the core
 * will. Only "address in use" counts; any other bind failure is left for the core to report.
 */
export function portTaken(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "EADDRINUSE"));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

export interface PortCheck {
  /** Default: try to bind the port. */
  taken?: (port: number) => Promise<boolean>;
  /** Whether whoever holds the port answers with this service's controller secret. */
  answersOurSecret: () => Promise<boolean>;
  /** Stops a core an earlier run left running; true when one was stopped. */
  stopLeftover: () => Promise<boolean>;
  log: (line: string) => void;
}

/**
 * Throws the "port used by another program" error when the port is held. A holder that knows
 * our secret is a core an earlier run of this service left behind: it is stopped instead.
 */
export async function ensurePortFree(port: number, check: PortCheck): Promise<void> {
  const taken = check.taken ?? portTaken;
  if (!(await taken(port))) return;
  if ((await check.answersOurSecret()) && (await check.stopLeftover())) {
    check.log("Stopped a proxy core that an earlier run left running");
    if (!(await taken(port))) return;
  }
  throw portInUseError(port);
}

/** The core's own line when its controller could not listen (mihomo's words, Go or Node). */
export function saysControllerPortTaken(lines: string[]): boolean {
  return lines.some((l) => /External controller listen error.*address already in use/i.test(l));
}
