import { useState } from "react";
import type { Rule, RuleInput } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { useT } from "../i18n.js";
import { ruleActionWord, ruleInWords, ruleTypeWord } from "./rule-words.js";
import { CoreOutput, sayFailure, useCoreAction } from "../core/core-failure.js";
import { Alert, type Say } from "../parts/ui.js";
import { RuleForm } from "./rule-form.js";
import { ruleInputOf } from "./rule-body.js";

export interface CustomRuleProps {
  rule: Rule;
  index: number;
  count: number;
  busy: boolean;
  onMove(from: number, to: number): void;
  onChanged(notice: Say): Promise<void>;
  /** A change of this rule begins: what an earlier one said no longer holds. */
  onStart(): void;
}

/**
 * Saving, switching and deleting one rule. Switching or deleting reloads the core, which may
 * refuse: its words are shown folded. The switch moves at once and goes back if refused.
 */
function useRuleChanges({ rule, onChanged, onStart }: CustomRuleProps) {
  const [editing, setEditing] = useState(false);
  const action = useCoreAction();
  const [switching, setSwitching] = useState<boolean | null>(null);
  const save = async (input: RuleInput) => {
    onStart();
    try {
      await api("PUT /rules/:id", { params: { id: rule.id }, body: ruleInputOf(input) });
      setEditing(false);
      await onChanged((tr) => tr("rules.saved", { rule: ruleInWords(input, tr) }));
      return null;
    } catch (err) {
      return sayFailure(err);
    }
  };
  const toggle = async (enabled: boolean) => {
    onStart();
    setSwitching(enabled);
    await action.run(async () => {
      await api("PUT /rules/:id", {
        params: { id: rule.id },
        body: ruleInputOf({ ...rule, enabled }),
      });
      await onChanged((tr) =>
        tr(enabled ? "rules.turnedOn" : "rules.turnedOff", { rule: ruleInWords(rule, tr) }),
      );
    });
    setSwitching(null);
  };
  const remove = () => {
    onStart();
    void action.run(
      async () => (
        await api("DELETE /rules/:id", { params: { id: rule.id } }),
        await onChanged((tr) => tr("rules.deleted", { rule: ruleInWords(rule, tr) }))
      ),
    );
  };
  return { action, switching, editing, setEditing, save, toggle, remove };
}

type Changes = ReturnType<typeof useRuleChanges>;

/** What the rule matches, where it sends traffic, and its on/off switch. */
function RuleSummary(props: { rule: Rule; index: number; busy: boolean; changes: Changes }) {
  const t = useT();
  const { rule, changes } = props;
  const label = `${rule.type} ${rule.value}`;
  return (
    <>
      <span className="rule-pos">{props.index + 1}</span>
      <span className="rule-what">
        <span className="rule-type" title={rule.type}>
          {ruleTypeWord(rule.type, t)} <span className="keyword">{rule.type}</span>
        </span>
        <span className="rule-value">{rule.value}</span>
      </span>
      <span className="rule-state">
        <span
          className={`badge ${rule.action === "DIRECT" ? "badge-info" : "badge-good"}`}
          title={rule.action}
        >
          {ruleActionWord(rule.action, t)}
        </span>
        {!rule.enabled ? <span className="badge">{t("rules.off")}</span> : null}
        <label className="check rule-toggle">
          <input
            type="checkbox"
            checked={changes.switching ?? rule.enabled}
            disabled={changes.action.busy || props.busy}
            onChange={(e) => void changes.toggle(e.target.checked)}
            aria-label={t("rules.toggleLabel", { rule: label })}
          />
          <span aria-hidden="true">{t("rules.on")}</span>
        </label>
      </span>
    </>
  );
}

/** Delete asks first, in the row (as a subscription's does). */
function DeleteButton({ label, changes }: { label: string; changes: Changes }) {
  const t = useT();
  const [confirming, setConfirming] = useState(false);
  const { busy } = changes.action;
  if (!confirming) {
    return (
      <button
        type="button"
        onClick={() => setConfirming(true)}
        disabled={busy}
        aria-label={t("rules.deleteLabel", { rule: label })}
      >
        {t("common.delete")}
      </button>
    );
  }
  return (
    <span className="rule-confirm">
      <button
        type="button"
        className="danger"
        onClick={changes.remove}
        disabled={busy}
        aria-label={t("rules.confirmDeleteLabel", { rule: label })}
      >
        {t("rules.confirmDelete")}
      </button>
      <button type="button" onClick={() => setConfirming(false)} disabled={busy}>
        {t("common.cancel")}
      </button>
    </span>
  );
}

function RuleButtons(props: CustomRuleProps & { changes: Changes }) {
  const t = useT();
  const { rule, index, count, busy, onMove, changes } = props;
  const label = `${rule.type} ${rule.value}`;
  return (
    <span className="button-row rule-buttons">
      <button
        type="button"
        onClick={() => onMove(index, index - 1)}
        disabled={busy || index === 0}
        aria-label={t("rules.upLabel", { rule: label })}
      >
        ↑
      </button>
      <button
        type="button"
        onClick={() => onMove(index, index + 1)}
        disabled={busy || index === count - 1}
        aria-label={t("rules.downLabel", { rule: label })}
      >
        ↓
      </button>
      <button
        type="button"
        onClick={() => changes.setEditing(!changes.editing)}
        aria-expanded={changes.editing}
        aria-label={t("rules.editLabel", { rule: label })}
      >
        {t("common.edit")}
      </button>
      <DeleteButton label={label} changes={props.changes} />
    </span>
  );
}

/** One of the operator's rules in the order: what it does, its buttons, and its edit form. */
export function CustomRule(props: CustomRuleProps) {
  const t = useT();
  const { rule } = props;
  const changes = useRuleChanges(props);
  return (
    <li
      className={`rule${rule.enabled ? "" : " rule-off"}`}
      aria-label={`${rule.type} ${rule.value}`}
    >
      <RuleSummary rule={rule} index={props.index} busy={props.busy} changes={changes} />
      <RuleButtons {...props} changes={changes} />
      <Alert text={changes.action.error} />
      <CoreOutput text={changes.action.output} t={t} />
      {changes.editing ? (
        <div className="rule-edit">
          <RuleForm
            initial={rule}
            submitLabel={t("common.save")}
            onSubmit={changes.save}
            onCancel={() => changes.setEditing(false)}
          />
        </div>
      ) : null}
    </li>
  );
}
