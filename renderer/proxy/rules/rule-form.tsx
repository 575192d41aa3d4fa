import { useState, type FormEvent } from "react";
import { useT, type Translate } from "../i18n.js";
import {
  MAX_RULE_VALUE,
  type RuleAction,
  type RuleInput,
  type RuleType,
} from "../../../server/contract/proxy.js";
import { ruleActionWord, ruleTypeWord } from "./rule-words.js";
import { ruleInputOf } from "./rule-body.js";
import { CoreOutput, type Failure } from "../core/core-failure.js";
import { Alert, Field } from "../parts/ui.js";

const HOST =
  /^(?=.{1,253}$)(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.?$/i;
const V4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

function cidrOk(value: string): boolean {
  const [addr, bits, extra] = value.split("/");
  if (extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  const n = Number(bits);
  if (V4.test(addr)) return n <= 32;
  // IPv6: leave the exact parsing to the server; check the character set and the prefix.
  return /^[0-9a-f:.]+$/i.test(addr) && addr.includes(":") && n <= 128;
}

/** Mirrors the server: a domain name for DOMAIN/DOMAIN-SUFFIX, a CIDR for IP-CIDR. */
export function ruleProblem(type: RuleType, value: string, t: Translate): string {
  const v = value.trim();
  if (!v) return t("rules.valueMissing");
  if (v.length > MAX_RULE_VALUE) return t("rules.valueLong");
  if (type === "IP-CIDR") return cidrOk(v) ? "" : t("rules.cidrBad");
  return HOST.test(v) ? "" : t("rules.domainBad");
}

/** The rule's type, value and route, each with the core's keyword beside its words. */
function RuleFields(props: { draft: RuleInput; problem: string; onEdit(next: RuleInput): void }) {
  const t = useT();
  const { draft, onEdit: edit } = props;
  return (
    <div className="rule-fields">
      <Field label={t("rules.type")} hint={t("rules.keywordHint", { keyword: draft.type })}>
        {(p) => (
          <select
            {...p}
            value={draft.type}
            onChange={(e) => edit({ ...draft, type: e.target.value as RuleType })}
          >
            {(["DOMAIN", "DOMAIN-SUFFIX", "IP-CIDR"] as const).map((k) => (
              <option key={k} value={k} title={k}>
                {ruleTypeWord(k, t)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={t("rules.value")} error={props.problem}>
        {(p) => (
          <input
            {...p}
            value={draft.value}
            spellCheck={false}
            placeholder={draft.type === "IP-CIDR" ? "10.0.0.0/8" : "example.com"}
            onChange={(e) => edit({ ...draft, value: e.target.value })}
          />
        )}
      </Field>
      <Field label={t("rules.action")} hint={t("rules.keywordHint", { keyword: draft.action })}>
        {(p) => (
          <select
            {...p}
            value={draft.action}
            onChange={(e) => edit({ ...draft, action: e.target.value as RuleAction })}
          >
            {(["DIRECT", "PROXY"] as const).map((k) => (
              <option key={k} value={k} title={k}>
                {ruleActionWord(k, t)}
              </option>
            ))}
          </select>
        )}
      </Field>
    </div>
  );
}

export function RuleForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: RuleInput;
  submitLabel: string;
  /** Resolves to null when saved, else what went wrong. */
  onSubmit(input: RuleInput): Promise<Failure | null>;
  onCancel?: () => void;
}) {
  const t = useT();
  const [draft, setDraft] = useState<RuleInput>(initial);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Failure | null>(null);
  const problem = tried ? ruleProblem(draft.type, draft.value, t) : "";
  // The service's answer was about what was sent; once the rule changes it no longer holds.
  const edit = (next: RuleInput) => {
    setDraft(next);
    setError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (ruleProblem(draft.type, draft.value, t)) return;
    setBusy(true);
    // Only the fields the service takes: the stored rule's id (or anything else the initial
    // value carries) must not travel back, the service refuses unknown fields.
    const err = await onSubmit(ruleInputOf({ ...draft, value: draft.value.trim() }));
    // A function given to a state setter would be called as an updater: wrap it.
    setError(() => err);
    setBusy(false);
    if (!err && !onCancel) {
      setDraft(initial);
      setTried(false);
    }
  };

  return (
    <form className="rule-form" onSubmit={submit} noValidate aria-label={submitLabel}>
      <RuleFields draft={draft} problem={problem} onEdit={edit} />
      <label className="check">
        <input
          type="checkbox"
          checked={draft.enabled}
          onChange={(e) => edit({ ...draft, enabled: e.target.checked })}
        />
        {t("rules.enabled")}
      </label>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t("common.working") : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            {t("common.cancel")}
          </button>
        ) : null}
      </div>
      <Alert text={error ? error(t) : ""} />
      <CoreOutput text={error?.output ?? ""} t={t} />
    </form>
  );
}
