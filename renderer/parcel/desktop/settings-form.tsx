import { useEffect, useState, type FormEvent } from "react";
import type { DesktopSettingsView } from "../../../preload/contract.js";
import {
  langOfSetting,
  noteDesktopAppearance,
  onPickerSaved,
} from "../../shared/desktop-appearance.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { Notice } from "../ui/notice.js";
import { desktopDict, type DesktopKey } from "./i18n.js";
import { draftOf, fieldErrors, patchOf, type Draft } from "./settings-draft.js";
import { Check, EntriesFieldset, Field } from "./settings-fields.js";
import { desktopApi, useDesktopLoad } from "./use-desktop.js";

type Outcome = { kind: "ok" | "error" | "info"; key: DesktopKey } | null;

/** The desktop settings; only what changed is sent, and the main side checks every field. */
export function SettingsForm() {
  const t = useT(desktopDict);
  const setLang = useApp((s) => s.setLang);
  const setTheme = useApp((s) => s.setTheme);
  const loaded = useDesktopLoad((api) => api.settings.get());
  const entries = useDesktopLoad((api) => api.entries.list());
  const info = useDesktopLoad((api) => api.app.info());
  const tray = info.data?.tray;
  const [saved, setSaved] = useState<DesktopSettingsView | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<Record<string, DesktopKey>>({});
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);

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

  if (!saved || !draft)
    return loaded.error ? (
      <Notice
        kind="error"
        action={
          <button type="button" onClick={loaded.reload}>
            {t("retry")}
          </button>
        }
      >
        {t("loadFailed")}
      </Notice>
    ) : (
      <p className="muted">…</p>
    );

  const { patch, errors: local } = patchOf(draft, saved);
  const changed = Object.keys(patch).length;
  const set = (p: Partial<Draft>) => {
    setOutcome(null);
    setDraft({ ...draft, ...p });
  };
  const error = (name: string): string | undefined => {
    const key = errors[name];
    return key ? t(key) : undefined;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (Object.keys(local).length > 0) {
      setErrors(local);
      setOutcome({ kind: "error", key: "saveFailed" });
      return;
    }
    if (changed === 0) {
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

  return (
    <form className="desktop-settings" onSubmit={(e) => void submit(e)} noValidate>
      <fieldset>
        <legend>{t("groupAppearance")}</legend>
        <div className="desktop-grid">
          <Field name="language" label={t("language")}>
            {(p) => (
              <select
                {...p}
                value={draft.language}
                onChange={(e) => set({ language: e.target.value as Draft["language"] })}
              >
                <option value="system">{t("languageSystem")}</option>
                <option value="en">English</option>
                <option value="zh-CN">简体中文</option>
              </select>
            )}
          </Field>
          <Field name="theme" label={t("theme")}>
            {(p) => (
              <select
                {...p}
                value={draft.theme}
                onChange={(e) => set({ theme: e.target.value as Draft["theme"] })}
              >
                <option value="system">{t("themeSystem")}</option>
                <option value="light">{t("themeLight")}</option>
                <option value="dark">{t("themeDark")}</option>
              </select>
            )}
          </Field>
        </div>
      </fieldset>

      <fieldset>
        <legend>{t("groupNetwork")}</legend>
        <div className="desktop-grid">
          <Field name="host" label={t("host")} hint={t("hostHint")} error={error("host")}>
            {(p) => (
              <input
                {...p}
                value={draft.host}
                spellCheck={false}
                onChange={(e) => set({ host: e.target.value })}
              />
            )}
          </Field>
          <Field name="parcelPort" label={t("parcelPort")} error={error("parcelPort")}>
            {(p) => (
              <input
                {...p}
                inputMode="numeric"
                value={draft.parcelPort}
                onChange={(e) => set({ parcelPort: e.target.value })}
              />
            )}
          </Field>
          <Field name="proxyPort" label={t("proxyPort")} error={error("proxyPort")}>
            {(p) => (
              <input
                {...p}
                inputMode="numeric"
                value={draft.proxyPort}
                onChange={(e) => set({ proxyPort: e.target.value })}
              />
            )}
          </Field>
        </div>
        <Check
          name="httpsEnabled"
          label={t("httpsEnabled")}
          hint={t("httpsHint")}
          checked={draft.httpsEnabled}
          onChange={(v) => set({ httpsEnabled: v })}
        />
        <Check
          name="lanName"
          label={t("lanNameSetting")}
          hint={t("lanNameHint")}
          checked={draft.lanName}
          onChange={(v) => set({ lanName: v })}
        />
        {draft.httpsEnabled ? (
          <div className="desktop-grid">
            <Field
              name="parcelHttpsPort"
              label={t("parcelHttpsPort")}
              error={error("parcelHttpsPort")}
            >
              {(p) => (
                <input
                  {...p}
                  inputMode="numeric"
                  value={draft.parcelHttpsPort}
                  onChange={(e) => set({ parcelHttpsPort: e.target.value })}
                />
              )}
            </Field>
          </div>
        ) : null}
      </fieldset>

      <EntriesFieldset
        view={entries.data}
        draft={draft}
        error={error("entries")}
        onChange={(p) => set(p)}
      />

      <fieldset>
        <legend>{t("groupWindow")}</legend>
        <Check
          name="startAtLogin"
          label={t("startAtLogin")}
          checked={draft.startAtLogin}
          onChange={(v) => set({ startAtLogin: v })}
        />
        {/* Without a tray icon anyone can see, hiding to it would leave nothing to click. */}
        <Check
          name="closeToTray"
          label={t("closeToTray")}
          checked={draft.closeToTray && tray?.available !== false}
          disabled={tray?.available === false}
          hint={
            tray?.available === false
              ? t(tray.reason === "no_session_bus" ? "noTrayBus" : "noTrayDesktop")
              : undefined
          }
          onChange={(v) => set({ closeToTray: v })}
        />
        <Check
          name="startMinimized"
          label={t("startMinimized")}
          checked={draft.startMinimized}
          hint={tray?.available === false ? t("startMinimizedNoTray") : undefined}
          onChange={(v) => set({ startMinimized: v })}
        />
      </fieldset>

      <fieldset>
        <legend>{t("groupCore")}</legend>
        <div className="desktop-grid">
          <Field
            name="coreBinary"
            label={t("coreBinary")}
            hint={t("coreBinaryHint")}
            error={error("coreBinary")}
          >
            {(p) => (
              <input
                {...p}
                value={draft.coreBinary}
                spellCheck={false}
                placeholder="/usr/local/bin/mihomo"
                onChange={(e) => set({ coreBinary: e.target.value })}
              />
            )}
          </Field>
          <Field name="coreServiceMode" label={t("coreServiceMode")}>
            {(p) => (
              <select
                {...p}
                value={draft.coreServiceMode}
                onChange={(e) =>
                  set({ coreServiceMode: e.target.value as Draft["coreServiceMode"] })
                }
              >
                <option value="process">{t("modeProcess")}</option>
                <option value="systemd">{t("modeSystemd")}</option>
              </select>
            )}
          </Field>
          {draft.coreServiceMode === "systemd" ? (
            <Field name="coreUnit" label={t("coreUnit")} error={error("coreUnit")}>
              {(p) => (
                <input
                  {...p}
                  value={draft.coreUnit}
                  spellCheck={false}
                  onChange={(e) => set({ coreUnit: e.target.value })}
                />
              )}
            </Field>
          ) : null}
        </div>
      </fieldset>

      <div className="button-row desktop-save">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t("saving") : t("save")}
        </button>
        {changed > 0 ? (
          <span className="muted" role="status">
            {t("changedCount", { n: changed })}
          </span>
        ) : null}
      </div>
      {outcome ? <Notice kind={outcome.kind}>{t(outcome.key)}</Notice> : null}
    </form>
  );
}
