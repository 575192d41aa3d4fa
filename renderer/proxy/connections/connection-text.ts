import type { Key, Translate } from "../i18n.js";
import type { ChainLabel, Connection } from "../../../server/contract/proxy.js";

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

/** The console's own groups and the core's built-in targets, said in words on screen. */
const STEP_WORDS: Record<string, Key> = {
  PROXY: "conn.stepProxy",
  AUTO: "nodes.auto",
  DIRECT: "conn.stepDirect",
  REJECT: "conn.stepReject",
};

/** A step's name: in words for a group or a built-in (given `t`), else as the core names it. */
export function stepName(step: ChainLabel, t?: Translate): string {
  const key = step.subscription ? undefined : STEP_WORDS[step.name];
  return key && t ? t(key) : step.name;
}

export function stepText(step: ChainLabel, t?: Translate): string {
  const name = stepName(step, t);
  return step.subscription ? `${name} (${step.subscription})` : name;
}

/**
 * `PROXY → AUTO → 🇯🇵 Tokyo (Provider A)`; with `t`, groups and built-ins in words
 * ("Proxy → Automatic (fastest) → 🇯🇵 Tokyo (Provider A)").
 */
export function chainText(c: Connection, t?: Translate): string {
  return chainSteps(c)
    .map((step) => stepText(step, t))
    .join(" → ");
}

/**
 * The core's names of the rule types the console's configuration uses, in words; other types
 * (rules the console never writes) are shown as the core names them.
 */
const RULE_WORDS: Record<string, Key> = {
  Domain: "rules.typeDomain",
  DomainSuffix: "rules.typeSuffix",
  IPCIDR: "rules.typeCidr",
  IPCIDR6: "rules.typeCidr",
  GeoSite: "conn.ruleGeoSite",
  GeoIP: "conn.ruleGeoIp",
  Match: "conn.ruleMatch",
};

/** Every word a connection's chain or rule may be said with (the search looks in them too). */
export const WORD_KEYS: readonly Key[] = [
  ...new Set([...Object.values(STEP_WORDS), ...Object.values(RULE_WORDS)]),
];

/** The type of rule that routed a connection, in words when the console knows it. */
export function ruleName(c: Connection, t: Translate): string {
  const key = RULE_WORDS[c.rule];
  return key ? t(key) : c.rule;
}

/** The rule that routed a connection: `Address range 127.0.0.0/8`, `Everything else`. */
export function ruleText(c: Connection, t: Translate): string {
  const name = ruleName(c, t);
  return c.rulePayload ? `${name} ${c.rulePayload}` : name;
}
