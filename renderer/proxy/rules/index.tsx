import { useState } from "react";
import { RuleInput, type Rule } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { useT, type Translate } from "../i18n.js";
import { ruleActionWord, ruleInWords, ruleTypeWord } from "./rule-words.js";
import { CoreOutput, sayFailure, useCoreAction } from "../core/core-failure.js";
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

function CustomRule({
  rule,
  index,
  count,
  busy,
  onMove,
  onChanged,
  onStart,
}: {
  rule: Rule;
  index: number;
  count: number;
  busy: boolean;
  onMove(from: number, to: number): void;
  onChanged(notice: Say): Promise<void>;
  /** A change of this rule begins: what an earlier one said no longer holds. */
  onStart(): void;
}) {
  const t = useT();
  const [editing, setEditing] = useState(false);
  // Delete asks first, in the row (as a subscription's does).
  const [confirming, setConfirming] = useState(false);
  // Switching or deleting reloads the core, which may refuse: its words are shown folded.
  const action = useCoreAction();
  const label = `${rule.type} ${rule.value}`;
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
  // The switch moves at once; it goes back if the service refuses.
  const [switching, setSwitching] = useState<boolean | null>(null);
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
  return (
    <li className={`rule${rule.enabled ? "" : " rule-off"}`} aria-label={label}>
      <span className="rule-pos">{index + 1}</span>
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
            checked={switching ?? rule.enabled}
            disabled={action.busy || busy}
            onChange={(e) => void toggle(e.target.checked)}
            aria-label={t("rules.toggleLabel", { rule: label })}
          />
          <span aria-hidden="true">{t("rules.on")}</span>
        </label>
      </span>
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
          onClick={() => setEditing(!editing)}
          aria-expanded={editing}
          aria-label={t("rules.editLabel", { rule: label })}
        >
          {t("common.edit")}
        </button>
        {confirming ? (
          <span className="rule-confirm">
            <button
              type="button"
              className="danger"
              onClick={() => {
                onStart();
                void action.run(
                  async () => (
                    await api("DELETE /rules/:id", { params: { id: rule.id } }),
                    await onChanged((tr) => tr("rules.deleted", { rule: ruleInWords(rule, tr) }))
                  ),
                );
              }}
              disabled={action.busy}
              aria-label={t("rules.confirmDeleteLabel", { rule: label })}
            >
              {t("rules.confirmDelete")}
            </button>
            <button type="button" onClick={() => setConfirming(false)} disabled={action.busy}>
              {t("common.cancel")}
            </button>
          </span>
        ) : (
          <button
            type="button"
            onClick={() => setConfirming(true)}
            disabled={action.busy}
            aria-label={t("rules.deleteLabel", { rule: label })}
          >
            {t("common.delete")}
          </button>
        )}
      </span>
      <Alert text={action.error} />
      <CoreOutput text={action.output} t={t} />
      {editing ? (
        <div className="rule-edit">
          <RuleForm
            initial={rule}
            submitLabel={t("common.save")}
            onSubmit={save}
            onCancel={() => setEditing(false)}
          />
        </div>
      ) : null}
    </li>
  );
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
    if (ok)
      document
        .querySelector<HTMLElement>(
          `[aria-label="${CSS.escape(`${item.type} ${item.value}`)}"] .rule-buttons button`,
        )
        ?.focus();
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
      const { id } = await api("POST /rules", { body: ruleInputOf(input) });
      await rules.reload();
      // The service stores the value normalised (lower case, network address); say that one.
      const stored = (await api("GET /rules")).custom.find((r) => r.id === id);
      const rule = stored ?? input;
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

  const defaults = rules.data?.defaults ?? [];
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
        <ol className="rule-order">
          {defaults.map((d, i) =>
            d.action === "CUSTOM" ? (
              <li key={i} className="custom-block">
                <p className="custom-head">{t("rules.customHere")}</p>
                {custom.length === 0 ? <p className="muted">{t("rules.none")}</p> : null}
                <ol className="rules" aria-label={t("rules.customList")}>
                  {custom.map((r, j) => (
                    <CustomRule
                      key={r.id}
                      rule={r}
                      index={j}
                      count={custom.length}
                      busy={reorder.busy}
                      onMove={(a, b) => void move(a, b)}
                      onChanged={changed}
                      onStart={starting}
                    />
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
      </Card>
    </div>
  );
}
