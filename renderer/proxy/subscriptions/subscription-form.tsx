import { useState, type FormEvent } from "react";
import { useT, type Translate } from "../i18n.js";
import { SubscriptionInput, SubscriptionInputSchema } from "../../../server/contract/proxy.js";
import { Alert, Field, type Say } from "../parts/ui.js";

export const EMPTY_SUBSCRIPTION: SubscriptionInput = {
  name: "",
  url: "",
  enabled: true,
  intervalHours: 24,
};

interface Draft {
  name: string;
  url: string;
  enabled: boolean;
  intervalHours: string;
}

/** The body a draft becomes (the route's own schema decides what it accepts). */
function inputOf(d: Draft): SubscriptionInput {
  return {
    name: d.name.trim(),
    url: d.url.trim(),
    enabled: d.enabled,
    intervalHours: d.intervalHours.trim() === "" ? NaN : Number(d.intervalHours),
  };
}

/** What the route's schema refuses in a draft, field by field, in the reader's words. */
export function subscriptionProblems(d: Draft, t: Translate): Partial<Record<keyof Draft, string>> {
  const out: Partial<Record<keyof Draft, string>> = {};
  const checked = SubscriptionInputSchema.safeParse(inputOf(d));
  if (checked.success) return out;
  const tooLong = (field: keyof Draft) =>
    checked.error.issues.some((i) => i.path[0] === field && i.code === "too_big");
  for (const issue of checked.error.issues) {
    const field = issue.path[0];
    if (field === "name") out.name = t(tooLong("name") ? "subs.nameLong" : "subs.nameMissing");
    else if (field === "url") out.url = t(tooLong("url") ? "subs.urlLong" : "subs.urlBad");
    else if (field === "intervalHours") out.intervalHours = t("subs.intervalBad");
  }
  return out;
}

/** The name, address, interval and the enabled switch. */
function SubscriptionFields(props: {
  draft: Draft;
  problems: Partial<Record<keyof Draft, string>>;
  onEdit(next: Draft): void;
}) {
  const t = useT();
  const { draft, problems, onEdit: edit } = props;
  return (
    <>
      <Field label={t("subs.name")} error={problems.name}>
        {(p) => (
          <input
            {...p}
            value={draft.name}
            maxLength={200}
            onChange={(e) => edit({ ...draft, name: e.target.value })}
          />
        )}
      </Field>
      <Field label={t("subs.url")} error={problems.url}>
        {(p) => (
          <input
            {...p}
            type="url"
            value={draft.url}
            spellCheck={false}
            onChange={(e) => edit({ ...draft, url: e.target.value })}
          />
        )}
      </Field>
      <Field
        label={t("subs.interval")}
        error={problems.intervalHours}
        hint={t("subs.intervalHint")}
      >
        {(p) => (
          <input
            {...p}
            type="number"
            min={0}
            max={720}
            step={1}
            inputMode="numeric"
            value={draft.intervalHours}
            onChange={(e) => edit({ ...draft, intervalHours: e.target.value })}
          />
        )}
      </Field>
      <label className="check">
        <input
          type="checkbox"
          checked={draft.enabled}
          onChange={(e) => edit({ ...draft, enabled: e.target.checked })}
        />
        {t("subs.enabled")}
      </label>
    </>
  );
}

export function SubscriptionForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: SubscriptionInput;
  submitLabel: string;
  /** Resolves to null when saved, else what went wrong. */
  onSubmit(input: SubscriptionInput): Promise<Say | null>;
  onCancel(): void;
}) {
  const t = useT();
  const [draft, setDraft] = useState<Draft>({
    ...initial,
    intervalHours: String(initial.intervalHours),
  });
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Say | null>(null);
  const problems = tried ? subscriptionProblems(draft, t) : {};
  // The service's answer was about what was sent; once a field changes it no longer holds.
  const edit = (next: Draft) => {
    setDraft(next);
    setError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (Object.keys(subscriptionProblems(draft, t)).length > 0) return;
    setBusy(true);
    const failed = await onSubmit(inputOf(draft));
    // A function given to a state setter would be called as an updater: wrap it.
    setError(() => failed);
    setBusy(false);
  };

  return (
    <form className="form-grid panel" onSubmit={submit} noValidate aria-label={submitLabel}>
      <SubscriptionFields draft={draft} problems={problems} onEdit={edit} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t("common.working") : submitLabel}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          {t("common.cancel")}
        </button>
      </div>
      <Alert text={error ? error(t) : ""} />
    </form>
  );
}
