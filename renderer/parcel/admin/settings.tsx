import { useEffect, useState, type FormEvent } from "react";
import { formatBytes } from "../../shared/format.js";
import { useA } from "./i18n.js";
import { PARCEL_API } from "../../../server/contract/parcel.js";
import { adminApi } from "./session.js";
import {
  check,
  draftsOf,
  POLICY_GROUPS,
  RUNTIME_GROUPS,
  UNITS,
  type Draft,
  type FieldDef,
  type Group,
  type Settings,
} from "./settings-fields.js";
import { Alert, Card, Field, useAction, useLoad } from "./ui.js";

function Input({
  def,
  draft,
  error,
  hint,
  changed,
  onChange,
}: {
  def: FieldDef;
  draft: Draft;
  error: string;
  hint: string;
  changed: boolean;
  onChange(d: Draft): void;
}) {
  const t = useA();
  if (def.kind === "bool")
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
  const help = def.help ? (
    <details className="adm-help">
      <summary>{t("form.howWorkedOut")}</summary>
      <p>{t(def.help)}</p>
    </details>
  ) : undefined;
  return (
    <Field label={t(def.label)} error={error} hint={hint} changed={changed} help={help}>
      {(p) => {
        if (def.kind === "enum")
          return (
            <select
              {...p}
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
              {...p}
              name={def.key}
              inputMode="numeric"
              value={String(draft)}
              onChange={(e) => onChange(e.target.value)}
            />
          );
        const bytes = draft as { amount: string; unit: number };
        return (
          <span className="adm-bytes">
            <input
              {...p}
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
      }}
    </Field>
  );
}

/**
 * One settings form (policy or runtime): validated as typed, and only the members that
 * changed go into the PUT, so two administrators editing different fields do not collide.
 */
function SettingsForm({
  title,
  intro,
  groups,
  load,
  save: store,
  testId,
}: {
  title: string;
  intro: string;
  groups: Group[];
  /** The route's answer: the whole settings. */
  load(signal: AbortSignal): Promise<Settings>;
  /** Saves the changed members and answers the whole settings. */
  save(changes: Record<string, unknown>): Promise<Settings>;
  testId: string;
}) {
  const t = useA();
  const loaded = useLoad(testId, load);
  const [saved, setSaved] = useState<Settings | null>(null);
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [tried, setTried] = useState(false);
  const save = useAction();
  const dirty = saved !== null && check(groups, drafts, saved, t).edited.length > 0;
  useEffect(() => {
    // Closing or reloading the page with unsaved settings asks first.
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);
  useEffect(() => {
    if (loaded.data) {
      setSaved(loaded.data);
      setDrafts(draftsOf(groups, loaded.data));
    }
  }, [loaded.data, groups]);

  if (!saved)
    return (
      <Card title={title}>
        {loaded.error ? (
          <Alert text={loaded.error} />
        ) : (
          <p className="muted">{t("common.loading")}</p>
        )}
      </Card>
    );
  const { errors, changes, edited, conflicts } = check(groups, drafts, saved, t);
  const changed = Object.keys(changes).length;
  // Every edit counts, a refused value too: it is flagged at its field and keeps Save open,
  // so it cannot pass for "no unsaved changes" and vanish when the page is left.
  const pending = edited.length;
  const toFix = edited.filter((k) => errors[k]).length;
  const invalid = Object.keys(errors).length > 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (invalid || changed === 0) return;
    void save.run(
      async () => {
        const next = await store(changes);
        setSaved(next);
        setDrafts(draftsOf(groups, next));
        setTried(false);
      },
      () => t("form.saved", { n: changed }),
    );
  };
  const set = (key: string, d: Draft) => {
    save.clear();
    setDrafts((old) => ({ ...old, [key]: d }));
  };
  return (
    <Card title={title} className="adm-settings">
      <p className="muted">{intro}</p>
      <form onSubmit={submit} noValidate data-testid={testId}>
        {groups.map((g) => (
          <fieldset key={g.title} className="adm-fieldset">
            <legend>{t(g.title)}</legend>
            <div className="adm-form-grid">
              {g.fields.map((f) => {
                const current = saved[f.key];
                const savedText =
                  f.kind === "bytes"
                    ? t("form.savedValue", { value: formatBytes(Number(current)) })
                    : "";
                const hint = f.hint ? t(f.hint) : savedText;
                return (
                  <Input
                    key={f.key}
                    def={f}
                    draft={drafts[f.key]}
                    error={errors[f.key] ?? ""}
                    hint={hint}
                    changed={edited.includes(f.key)}
                    onChange={(d) => set(f.key, d)}
                  />
                );
              })}
            </div>
          </fieldset>
        ))}
        {conflicts.length > 0 ? (
          <ul className="adm-conflicts" data-testid="conflicts">
            {conflicts.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        ) : null}
        <Alert text={save.error} />
        <Alert kind="ok" text={save.done} />
        {invalid && tried ? <Alert text={t("form.fix")} /> : null}
        <div className="adm-form-actions">
          <button type="submit" className="primary" disabled={save.busy || pending === 0}>
            {save.busy ? t("common.working") : t("form.save", { n: pending })}
          </button>
          <button
            type="button"
            disabled={save.busy || pending === 0}
            onClick={() => {
              setDrafts(draftsOf(groups, saved));
              setTried(false);
              save.clear();
            }}
          >
            {t("form.revert")}
          </button>
          <button
            type="button"
            onClick={() => {
              save.clear();
              setTried(false);
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
