import type { Key, Translate } from "../i18n.js";

/** The core's rule keywords said in the reader's language; the keyword stays as a small label. */
const TYPE_WORDS: Record<string, Key> = {
  DOMAIN: "rules.typeDomain",
  "DOMAIN-SUFFIX": "rules.typeSuffix",
  "IP-CIDR": "rules.typeCidr",
};
const ACTION_WORDS: Record<string, Key> = {
  DIRECT: "rules.actionDirect",
  PROXY: "rules.actionProxy",
};

/** A rule type (DOMAIN, ...) in words; an unknown keyword as it came. */
export function ruleTypeWord(type: string, t: Translate): string {
  const key = TYPE_WORDS[type];
  return key ? t(key) : type;
}

/** A rule's route (DIRECT, PROXY) in words; an unknown keyword as it came. */
export function ruleActionWord(action: string, t: Translate): string {
  const key = ACTION_WORDS[action];
  return key ? t(key) : action;
}

/** What a rule matches, in words: "example.com and its subdomains", "addresses in 10.0.0.0/8". */
const TARGET_WORDS: Record<string, Key> = {
  DOMAIN: "rules.sayDomain",
  "DOMAIN-SUFFIX": "rules.saySuffix",
  "IP-CIDR": "rules.sayCidr",
};
const ROUTE_WORDS: Record<string, Key> = {
  DIRECT: "rules.sayDirect",
  PROXY: "rules.sayProxy",
};

/**
 * A whole rule in the reader's words, for sentences that quote it ("Rule added: example.com
 * and its subdomains → through the proxy"); unknown keywords are kept as they came.
 */
export function ruleInWords(
  rule: { type: string | number; value: string | number; action: string | number },
  t: Translate,
): string {
  const [type, value, action] = [String(rule.type), String(rule.value), String(rule.action)];
  const target = TARGET_WORDS[type];
  const route = ROUTE_WORDS[action];
  return t("rules.sayRule", {
    target: target ? t(target, { value }) : `${type} ${value}`,
    route: route ? t(route) : action,
  });
}
