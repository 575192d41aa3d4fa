import type { FormEvent } from "react";
import { PARCEL_API } from "../../../server/contract/parcel.js";
import type { FieldControl } from "../../shared/field.js";
import { formatBytes } from "../../shared/format.js";
import { useSettingsForm, useWarnOnLeave } from "../../shared/ui/use-settings-form.js";
import { useA } from "./i18n.js";
import { adminApi } from "./session.js";
import {
  conflictsOf,
  formFields,
  POLICY_GROUPS,
  RUNTIME_GROUPS,
  UNITS,
  type Draft,
  type Drafts,
  type FieldDef,
  type Group,
  type Settings,
} from "./settings-fields.js";
import { pairRules } from "./settings-pairs.js";
import { Alert, Card, Field, useAction, useLoad } from "./ui.js";

interface InputProps {
  def: FieldDef;
  draft: Draft;
  onChange(d: Draft): void;
}

/** A yes/no member: a checkbox carrying its own label. */
function BoolInput({ def, draft, changed, onChange }: InputProps & { changed: boolean }) {
  const t = useA();
  return (
    <label className={`adm-check${changed ? " adm-field-changed" : ""}`}>
      <input
        type="checkbox"
        checked={draft === true}
        onChange={(e) => onChange(e.target.checked)}
        name={def.key}
      />
      <span>{t(def.label)}</span>
    </label>
  );
}

/** An amount of bytes: the number and its unit. */
function BytesInput({ def, draft, onChange, control }: InputProps & { control: FieldControl }) {
  const t = useA();
  const bytes = draft as { amount: string; unit: number };
  return (
    <span className="adm-bytes">
      <input
        {...control}
        name={def.key}
        inputMode="decimal"
        value={bytes.amount}
        onChange={(e) => onChange({ ...bytes, amount: e.target.value })}
      />
      <select
        aria-label={t("form.unitOf", { field: t(def.label) })}
        value={bytes.unit}
        onChange={(e) => onChange({ ...bytes, unit: Number(e.target.value) })}
      >
        {UNITS.map((u) => (
          <option key={u.name} value={u.size}>
            {u.name}
          </option>
        ))}
      </select>
    </span>
  );
}

/** The control of a choice, count or amount member inside its labelled field. */
function Control({ def, draft, onChange, control }: InputProps & { control: FieldControl }) {
  const t = useA();
  if (def.kind === "enum")
    return (
      <select
        {...control}
        name={def.key}
        value={String(draft)}
        onChange={(e) => onChange(e.target.value)}
      >
        {def.options?.map((o) => (
          <option key={o.value} value={o.value}>
            {t(o.label)}
          </option>
        ))}
      </select>
    );
  if (def.kind === "int")
    return (
      <input
        {...control}
        name={def.key}
        inputMode="numeric"
        value={String(draft)}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  return <BytesInput def={def} draft={draft} onChange={onChange} control={control} />;
}

function Input(props: InputProps & { error: string; hint: string; changed: boolean }) {
  const t = useA();
  const { def, error, hint, changed } = props;
  if (def.kind === "bool") return <BoolInput {...props} />;
  const help = def.help ? (
    <details className="adm-help">
      <summary>{t("form.howWorkedOut")}</summary>
      <p>{t(def.help)}</p>
    </details>
  ) : undefined;
  return (
    <Field label={t(def.label)} error={error} hint={hint} changed={changed} help={help}>
      {(control) => <Control {...props} control={control} />}
    </Field>
  );
}

interface FormProps {
  title: string;
  intro: string;
  groups: Group[];
  /** The route's answer: the whole settings. */
  load(signal: AbortSignal): Promise<Settings>;
  /** Saves the changed members and answers the whole settings. */
  save(changes: Record<string, unknown>): Promise<Settings>;
  testId: string;
}

/**
 * One settings form's state through the shared builder: validated as typed, and only the
 * members that changed go into the PUT, so two administrators editing different fields do not
 * collide.
 */
function useAdminForm({ groups, load, save: store, testId }: FormProps) {
  const t = useA();
  const loaded = useLoad(testId, load);
  const save = useAction();
  const form = useSettingsForm<Settings, Drafts, string>(loaded.data, {
    fields: formFields(groups, t),
    rules: pairRules(t),
    live: true,
    refill: "always",
    send: (_values, changes) => store(changes),
    onEdit: save.clear,
  });
  useWarnOnLeave(form.ready && form.edited.length > 0);
  return { t, loaded, save, form };
}

type AdminForm = ReturnType<typeof useAdminForm>;
type ReadyForm = Extract<AdminForm["form"], { ready: true }>;

/** The form's fields, group by group; a bytes member without a hint shows its saved value. */
function FieldGroups({ groups, form }: { groups: Group[]; form: ReadyForm }) {
  const t = useA();
  return groups.map((g) => (
    <fieldset key={g.title} className="adm-fieldset">
      <legend>{t(g.title)}</legend>
      <div className="adm-form-grid">
        {g.fields.map((f) => {
          const savedText =
            f.kind === "bytes"
              ? t("form.savedValue", { value: formatBytes(Number(form.saved[f.key])) })
              : "";
          return (
            <Input
              key={f.key}
              def={f}
              draft={form.draft[f.key]}
              error={form.errors[f.key] ?? ""}
              hint={f.hint ? t(f.hint) : savedText}
              changed={form.edited.includes(f.key)}
              onChange={(d) => form.set(f.key, d)}
            />
          );
        })}
      </div>
    </fieldset>
  ));
}

/** Save, revert and reload, and how many edits wait (and how many of them need fixing). */
function FormActions({ loaded, save, form }: AdminForm & { form: ReadyForm }) {
  const t = useA();
  // Every edit counts, a refused value too: it is flagged at its field and keeps Save open,
  // so it cannot pass for "no unsaved changes" and vanish when the page is left.
  const pending = form.edited.length;
  const toFix = form.edited.filter((k) => form.errors[k]).length;
  return (
    <div className="adm-form-actions">
      <button type="submit" className="primary" disabled={save.busy || pending === 0}>
        {save.busy ? t("common.working") : t("form.save", { n: pending })}
      </button>
      <button
        type="button"
        disabled={save.busy || pending === 0}
        onClick={() => {
          form.reset();
          save.clear();
        }}
      >
        {t("form.revert")}
      </button>
      <button
        type="button"
        onClick={() => {
          save.clear();
          loaded.reload();
        }}
        disabled={loaded.loading}
      >
        {t("form.reload")}
      </button>
      <span className="muted" role="status">
        {pending === 0
          ? t("form.noChanges")
          : toFix > 0
            ? t("form.changedFix", { n: pending, bad: toFix })
            : t("form.changed", { n: pending })}
      </span>
    </div>
  );
}

/** One settings form (policy or runtime). */
function SettingsForm(props: FormProps) {
  const state = useAdminForm(props);
  const { t, loaded, save, form } = state;
  if (!form.ready)
    return (
      <Card title={props.title}>
        {loaded.error ? (
          <Alert text={loaded.error} />
        ) : (
          <p className="muted">{t("common.loading")}</p>
        )}
      </Card>
    );
  const conflicts = conflictsOf(props.groups, form.values, form.draft, t);
  const changed = Object.keys(form.changes).length;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void form.submit((task) => save.run(task, () => t("form.saved", { n: changed })));
  };
  return (
    <Card title={props.title} className="adm-settings">
      <p className="muted">{props.intro}</p>
      <form onSubmit={submit} noValidate data-testid={props.testId}>
        <FieldGroups groups={props.groups} form={form} />
        {conflicts.length > 0 ? (
          <ul className="adm-conflicts" data-testid="conflicts">
            {conflicts.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        ) : null}
        <Alert text={save.error} />
        <Alert kind="ok" text={save.done} />
        {form.invalid && form.tried ? <Alert text={t("form.fix")} /> : null}
        <FormActions {...state} form={form} />
      </form>
    </Card>
  );
}

export function SettingsTab() {
  const t = useA();
  return (
    <div className="adm-settings-tab">
      <SettingsForm
        title={t("policy.title")}
        intro={t("policy.intro")}
        groups={POLICY_GROUPS}
        load={(signal) => adminApi("GET /admin/policy", { signal })}
        // Checked against the route's own schema: a member it refuses never leaves the form.
        save={(changes) =>
          adminApi("PUT /admin/policy", {
            body: PARCEL_API["PUT /admin/policy"].body.parse(changes),
          })
        }
        testId="policy-form"
      />
      <SettingsForm
        title={t("runtime.title")}
        intro={t("runtime.intro")}
        groups={RUNTIME_GROUPS}
        load={(signal) => adminApi("GET /admin/runtime", { signal })}
        save={(changes) =>
          adminApi("PUT /admin/runtime", {
            body: PARCEL_API["PUT /admin/runtime"].body.parse(changes),
          })
        }
        testId="runtime-form"
      />
    </div>
  );
}
