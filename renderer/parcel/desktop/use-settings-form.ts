import { useEffect, useState, type FormEvent } from "react";
import type { DesktopSettingsView } from "../../../preload/contract.js";
import {
  langOfSetting,
  noteDesktopAppearance,
  onPickerSaved,
} from "../../shared/desktop-appearance.js";
import { useSettingsForm as useSharedForm } from "../../shared/ui/use-settings-form.js";
import { useApp } from "../store.js";
import type { DesktopKey } from "./i18n.js";
import { desktopFormSpec, SettingsRefused, type Draft } from "./settings-draft.js";
import { desktopApi, noteSettingsSaved, type Loaded } from "./use-desktop.js";

export type Outcome = { kind: "ok" | "error" | "info"; key: DesktopKey } | null;

const spec = desktopFormSpec((patch) => desktopApi().settings.set(patch));

/**
 * The desktop settings form through the shared builder: the draft, the errors beside each
 * field (ports that are not ports once a save was tried, and the desktop's refusals until
 * that field is edited), the outcome of the last save, and `submit`, which sends only what
 * changed (the main side checks every field).
 */
export function useSettingsForm(loaded: Loaded<DesktopSettingsView>) {
  const setLang = useApp((s) => s.setLang);
  const setTheme = useApp((s) => s.setTheme);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const form = useSharedForm(loaded.data, { ...spec, onEdit: () => setOutcome(null) });

  // The header's pickers save language and theme too: the form shows what is stored.
  const { merge } = form;
  useEffect(() => onPickerSaved((look) => merge(look)), [merge]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const submitted = await form.submit(async (task) => {
      setBusy(true);
      try {
        const stored = await task();
        setOutcome({ kind: "ok", key: stored.plan.restart ? "savedRestart" : "saved" });
        noteSettingsSaved();
        // This page follows at once; the desktop reloads its windows to apply it everywhere.
        noteDesktopAppearance(stored.settings);
        if ("language" in stored.sent) setLang(langOfSetting(stored.settings.language));
        if ("theme" in stored.sent) setTheme(stored.settings.theme);
      } catch (err) {
        const refused = err instanceof SettingsRefused;
        setOutcome({ kind: "error", key: refused ? "saveFailed" : "saveError" });
      } finally {
        setBusy(false);
      }
    });
    if (submitted === "invalid") setOutcome({ kind: "error", key: "saveFailed" });
    if (submitted === "unchanged") setOutcome({ kind: "info", key: "noChanges" });
  };
  if (!form.ready) return { ready: false as const };
  return {
    ready: true as const,
    draft: form.draft,
    errors: form.errors,
    outcome,
    busy,
    changed: Object.keys(form.changes).length,
    set: (patch: Partial<Draft>) => form.edit(patch),
    submit: (e: FormEvent) => void submit(e),
  };
}
