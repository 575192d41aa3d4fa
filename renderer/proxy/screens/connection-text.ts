import type { ChainLabel, Connection } from "../types.js";

/** `host:port` (or the address when the core knows no host name). */
export function host(c: Connection): string {
  const m = c.metadata;
  const name = m.host || m.destinationIP || "";
  return m.destinationPort ? `${name}:${m.destinationPort}` : name;
}

/**
 * The chain from the entry group to the node that carried the connection. The service names
 * each step; a core step the service did not name is shown as the core sent it.
 */
export function chainSteps(c: Connection): ChainLabel[] {
  const steps = c.chainLabels ?? (c.chains ?? []).map((name) => ({ name, subscription: null }));
  return steps.slice().reverse();
}

export function stepText(step: ChainLabel): string {
  return step.subscription ? `${step.name} (${step.subscription})` : step.name;
}

/** `PROXY → AUTO → 🇯🇵 Tokyo (Provider A)` */
export function chainText(c: Connection): string {
  return chainSteps(c).map(stepText).join(" → ");
}
