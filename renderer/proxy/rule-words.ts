import type { Key, Translate } from "./i18n.js";

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
