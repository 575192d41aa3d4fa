import { useState } from "react";
import type { Rule, RuleInput, RulesView } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { useT, type Translate } from "../i18n.js";
import { ruleActionWord, ruleInWords } from "./rule-words.js";
import { CoreOutput, sayFailure, useCoreAction } from "../core/core-failure.js";
import { CustomRule, type CustomRuleProps } from "./custom-rule.js";
import { Alert, Card, Loading, useLoad, type Say } from "../parts/ui.js";
import { RuleForm } from "./rule-form.js";
import { ruleInputOf } from "./rule-body.js";
import "./styles-rules.css";

const DEFAULT_KEYS = [
  "rules.default0",
  "rules.default1",
  "rules.default2",
  "rules.default3",
] as const;
const NEW_RULE: RuleInput = { type: "DOMAIN-SUFFIX", value: "", action: "DIRECT", enabled: true };

/** Focuses the moved rule's first button again (its row was drawn anew). */
function focusRule(rule: Rule) {
  document
    .querySelector<HTMLElement>(
      `[aria-label="${CSS.escape(`${rule.type} ${rule.value}`)}"] .rule-buttons button`,
    )
    ?.focus();
}

type RuleProps = Omit<CustomRuleProps, "rule" | "index" | "count">;

/** The built-in rules in their order, the operator's own where the CUSTOM one stands. */
function RuleOrder(props: { defaults: RulesView["defaults"]; custom: Rule[]; each: RuleProps }) {
  const t = useT();
  const { defaults, custom } = props;
  return (
    <ol className="rule-order">
      {defaults.map((d, i) =>
        d.action === "CUSTOM" ? (
          <li key={i} className="custom-block">
            <p className="custom-head">{t("rules.customHere")}</p>
            {custom.length === 0 ? <p className="muted">{t("rules.none")}</p> : null}
            <ol className="rules" aria-label={t("rules.customList")}>
              {custom.map((r, j) => (
                <CustomRule key={r.id} rule={r} index={j} count={custom.length} {...props.each} />
              ))}
            </ol>
          </li>
        ) : (
          <li key={i} className="default-rule" aria-readonly="true">
            <span className="badge">{t("rules.builtIn")}</span>{" "}
            {defaults.length === 4 ? t(DEFAULT_KEYS[i]) : d.match} →{" "}
            <strong title={d.action}>{ruleActionWord(d.action, t)}</strong>
          </li>
        ),
      )}
    </ol>
  );
}

/** Adds a rule; says the rule as the service stored it (lower case, network address). */
async function addRule(input: RuleInput, reload: () => Promise<void>): Promise<RuleInput> {
  const { id } = await api("POST /rules", { body: ruleInputOf(input) });
  await reload();
  const stored = (await api("GET /rules")).custom.find((r) => r.id === id);
  return stored ?? input;
}

export function RulesScreen() {
  const t = useT();
  const rules = useLoad(() => api("GET /rules"));
  const reorder = useCoreAction();
  const [order, setOrder] = useState<Rule[] | null>(null);
  // What the last add, edit, switch or delete did, said where the person is looking.
  const [added, setAdded] = useState<Say | null>(null);
  const [notice, setNotice] = useState<Say | null>(null);
  const custom = order ?? rules.data?.custom ?? [];

  const move = async (from: number, to: number) => {
    setNotice(null);
    const next = [...custom];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item);
    setOrder(next); // shown at once; put back if the server refuses
    const ok = await reorder.run(
      () => api("PUT /rules/order", { body: { ids: next.map((r) => r.id) } }),
      t("rules.reordered"),
    );
    await rules.reload();
    setOrder(null);
    if (ok) focusRule(item);
  };
  // A new change begins: the notices of earlier ones no longer hold beside its answer.
  const starting = () => {
    setAdded(null);
    setNotice(null);
    reorder.clear();
  };
  const create = async (input: RuleInput) => {
    starting();
    try {
      const rule = await addRule(input, rules.reload);
      setAdded(() => (tr: Translate) => tr("rules.added", { rule: ruleInWords(rule, tr) }));
      return null;
    } catch (err) {
      return sayFailure(err);
    }
  };
  const changed = async (say: Say) => {
    reorder.clear();
    await rules.reload();
    setNotice(() => say);
  };
  const each: RuleProps = {
    busy: reorder.busy,
    onMove: (a, b) => void move(a, b),
    onChanged: changed,
    onStart: starting,
  };

  return (
    <div className="rules-screen">
      <Card title={t("rules.addTitle")}>
        <RuleForm initial={NEW_RULE} submitLabel={t("rules.add")} onSubmit={create} />
        <Alert kind="ok" text={added ? added(t) : ""} />
      </Card>
      <Card title={t("rules.orderTitle")}>
        <p className="muted">{t("rules.orderHint")}</p>
        <Alert text={rules.error || reorder.error} />
        <CoreOutput text={rules.error ? "" : reorder.output} t={t} />
        <Alert kind="ok" text={reorder.done || (notice ? notice(t) : "")} />
        {rules.loading && !rules.data ? <Loading /> : null}
        <RuleOrder defaults={rules.data?.defaults ?? []} custom={custom} each={each} />
      </Card>
    </div>
  );
}
