import { useEffect, useState, type FormEvent } from "react";
import type { DesktopSettingsView } from "../../../preload/contract.js";
import {
  langOfSetting,
  noteDesktopAppearance,
  onPickerSaved,
} from "../../shared/desktop-appearance.js";
import { useApp } from "../store.js";
import type { DesktopKey } from "./i18n.js";
import { draftOf, fieldErrors, patchOf, type Draft } from "./settings-draft.js";
import { desktopApi, type Loaded } from "./use-desktop.js";

export type Outcome = { kind: "ok" | "error" | "info"; key: DesktopKey } | null;

/** The saved settings and the draft typed over them, kept in step with the stored ones. */
function useSavedAndDraft(loaded: Loaded<DesktopSettingsView>) {
  const [saved, setSaved] = useState<DesktopSettingsView | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    // The first answer fills the form; later ones (after a restart) only when nothing is typed.
    const data = loaded.data;
    if (!data) return;
    if (saved === null || draft === null || Object.keys(patchOf(draft, saved).patch).length === 0) {
      setSaved(data);
      setDraft(draftOf(data));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new answer refills
  }, [loaded.data]);

  // The header's pickers save language and theme too: the form shows what is stored.
  useEffect(
    () =>
      onPickerSaved((look) => {
        setSaved((s) => (s ? { ...s, ...look } : s));
        setDraft((d) => (d ? { ...d, ...look } : d));
      }),
    [],
  );
  return { saved, setSaved, draft, setDraft };
}

/**
 * The desktop settings form's state: the draft, the refused fields, the outcome of the last
 * save, and `submit`, which sends only what changed (the main side checks every field).
 */
export function useSettingsForm(loaded: Loaded<DesktopSettingsView>) {
  const setLang = useApp((s) => s.setLang);
  const setTheme = useApp((s) => s.setTheme);
  const { saved, setSaved, draft, setDraft } = useSavedAndDraft(loaded);
  const [errors, setErrors] = useState<Record<string, DesktopKey>>({});
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);

  const saveChanges = async (draft: Draft, saved: DesktopSettingsView) => {
    const { patch, errors: local } = patchOf(draft, saved);
    if (Object.keys(local).length > 0) {
      setErrors(local);
      setOutcome({ kind: "error", key: "saveFailed" });
      return;
    }
    if (Object.keys(patch).length === 0) {
      setOutcome({ kind: "info", key: "noChanges" });
      return;
    }
    setBusy(true);
    try {
      const result = await desktopApi().settings.set(patch);
      if (!result.ok) {
        setErrors(fieldErrors(result.errors));
        setOutcome({ kind: "error", key: "saveFailed" });
        return;
      }
      setErrors({});
      setSaved(result.settings);
      setDraft(draftOf(result.settings));
      setOutcome({ kind: "ok", key: result.plan.restart ? "savedRestart" : "saved" });
      // This page follows at once; the desktop reloads its windows to apply it everywhere.
      noteDesktopAppearance(result.settings);
      if ("language" in patch) setLang(langOfSetting(result.settings.language));
      if ("theme" in patch) setTheme(result.settings.theme);
    } catch {
      setOutcome({ kind: "error", key: "saveError" });
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (draft && saved) void saveChanges(draft, saved);
  };
  const set = (p: Partial<Draft>) => {
    setOutcome(null);
    setDraft((d) => (d ? { ...d, ...p } : d));
  };
  const changed = draft && saved ? Object.keys(patchOf(draft, saved).patch).length : 0;
  return { saved, draft, errors, outcome, busy, changed, set, submit };
}
