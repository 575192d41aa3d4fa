import type { ReactNode } from "react";
import { Field as SharedField, type FieldControl } from "../../shared/field.js";
import type { DesktopSettingsView, EntriesView } from "../../../preload/contract.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { desktopDict } from "./i18n.js";
import { RESTARTS, type Draft } from "./settings-draft.js";

/** Chinese sentences follow each other without a space. */
function useSentenceGap(): string {
  return useApp((s) => (s.lang === "zh-CN" ? "" : " "));
}

export type FieldName = keyof DesktopSettingsView;

/** A labelled field with its hint, its error and a note when changing it restarts services. */
export function Field({
  name,
  label,
  hint,
  error,
  children,
}: {
  name: FieldName;
  label: string;
  hint?: string;
  error?: string;
  children: (control: FieldControl) => ReactNode;
}) {
  const t = useT(desktopDict);
  const gap = useSentenceGap();
  const notes = [hint, RESTARTS.has(name) ? t("restartHint") : ""].filter(Boolean).join(gap);
  return (
    <SharedField name={name} label={label} hint={notes} error={error} notesTogether>
      {children}
    </SharedField>
  );
}

export function Check({
  name,
  label,
  hint,
  checked,
  disabled = false,
  onChange,
}: {
  name: FieldName;
  label: string;
  hint?: string;
  checked: boolean;
  disabled?: boolean;
  onChange(value: boolean): void;
}) {
  const t = useT(desktopDict);
  const gap = useSentenceGap();
  const notes = [hint, RESTARTS.has(name) ? t("restartHint") : ""].filter(Boolean).join(gap);
  return (
    <div className="desktop-check" data-field={name}>
      <label className="inline-check">
        <input
          type="checkbox"
          checked={checked}
          disabled={disabled}
          onChange={(e) => onChange(e.target.checked)}
        />
        <span>{label}</span>
      </label>
      {notes ? <span className="field-hint">{notes}</span> : null}
    </div>
  );
}

/** Interfaces by name (one may carry several addresses), then chosen ones not present now. */
function entryChoices(
  view: EntriesView | null,
  chosen: string[],
): Array<{ name: string; detail: string; virtual: boolean; present: boolean }> {
  const byName = new Map<string, { addresses: string[]; virtual: boolean }>();
  for (const i of view?.interfaces ?? []) {
    const seen = byName.get(i.name) ?? { addresses: [], virtual: i.virtual };
    seen.addresses.push(i.address);
    byName.set(i.name, seen);
  }
  const list = [...byName].map(([name, v]) => ({
    name,
    detail: v.addresses.join(", "),
    virtual: v.virtual,
    present: true,
  }));
  for (const item of chosen) {
    if (!byName.has(item) && !(view?.interfaces ?? []).some((i) => i.address === item))
      list.push({ name: item, detail: "", virtual: false, present: false });
  }
  return list;
}

/** Which networks get an address: every one detected, or those ticked (by interface name). */
export function EntriesFieldset({
  view,
  draft,
  error,
  onChange,
}: {
  view: EntriesView | null;
  draft: Draft;
  error?: string;
  onChange(patch: Partial<Draft>): void;
}) {
  const t = useT(desktopDict);
  const set = onChange;
  const { mode, chosen } = draft.entries;
  const choices = entryChoices(view, chosen);
  const toggle = (name: string, on: boolean) =>
    set({
      entries: { mode, chosen: on ? [...chosen, name] : chosen.filter((c) => c !== name) },
    });
  return (
    <fieldset data-field="entries">
      <legend>{t("groupEntries")}</legend>
      <div className="desktop-radios" role="radiogroup" aria-label={t("groupEntries")}>
        <label className="inline-check">
          <input
            type="radio"
            name="entries-mode"
            checked={mode === "all"}
            onChange={() => set({ entries: { mode: "all", chosen } })}
          />
          <span>{t("entriesAll")}</span>
        </label>
        <label className="inline-check">
          <input
            type="radio"
            name="entries-mode"
            checked={mode === "chosen"}
            onChange={() => set({ entries: { mode: "chosen", chosen } })}
          />
          <span>{t("entriesChosen")}</span>
        </label>
      </div>
      {mode === "chosen" ? (
        choices.length === 0 ? (
          <p className="muted small">{t("entriesNone")}</p>
        ) : (
          <ul className="desktop-interfaces">
            {choices.map((c) => (
              <li key={c.name}>
                <label className="inline-check">
                  <input
                    type="checkbox"
                    checked={chosen.includes(c.name)}
                    onChange={(e) => toggle(c.name, e.target.checked)}
                  />
                  <span>
                    {c.present ? (
                      <>
                        <strong translate="no">{c.name}</strong>{" "}
                        <span className="mono">{c.detail}</span>
                        {c.virtual ? <span className="badge">{t("entryVirtual")}</span> : null}
                      </>
                    ) : (
                      t("entryMissing", { name: c.name })
                    )}
                  </span>
                </label>
              </li>
            ))}
          </ul>
        )
      ) : null}
      {error ? <p className="field-error">{error}</p> : null}
      <p className="field-hint">{t("restartHint")}</p>
    </fieldset>
  );
}
