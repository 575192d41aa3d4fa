import type { RuleInput } from "../../../server/contract/proxy.js";

/**
 * The editable fields of a rule, and nothing else: a stored rule also has its `id`, which the
 * route's strict schema refuses ("Unknown field: id").
 */
export function ruleInputOf(rule: RuleInput): RuleInput {
  return { type: rule.type, value: rule.value, action: rule.action, enabled: rule.enabled };
}
