import type { TrayStatus } from "../../../preload/contract.js";
import { useT } from "../i18n.js";
import { desktopDict } from "./i18n.js";
import type { Draft } from "./settings-draft.js";
import { Check, Field } from "./settings-fields.js";

/** What every section of the desktop settings form is handed. */
export interface SectionProps {
  draft: Draft;
  set(patch: Partial<Draft>): void;
  /** The words of the problem or refusal for a field, if any. */
  error(name: keyof Draft): string | undefined;
}

type TextName = "host" | "parcelPort" | "proxyPort" | "parcelHttpsPort" | "coreBinary" | "coreUnit";

/** A text field bound to one draft value; a port takes digits, a name or path no spell check. */
function DraftText({
  name,
  label,
  hint,
  numeric = false,
  placeholder,
  draft,
  set,
  error,
}: SectionProps & {
  name: TextName;
  label: string;
  hint?: string;
  numeric?: boolean;
  placeholder?: string;
}) {
  return (
    <Field name={name} label={label} hint={hint} error={error(name)}>
      {(p) => (
        <input
          {...p}
          inputMode={numeric ? "numeric" : undefined}
          value={draft[name]}
          spellCheck={numeric ? undefined : false}
          placeholder={placeholder}
          onChange={(e) => set({ [name]: e.target.value })}
        />
      )}
    </Field>
  );
}

export function AppearanceFieldset({ draft, set }: SectionProps) {
  const t = useT(desktopDict);
  return (
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
  );
}

export function NetworkFieldset(props: SectionProps) {
  const t = useT(desktopDict);
  const { draft, set } = props;
  return (
    <fieldset>
      <legend>{t("groupNetwork")}</legend>
      <div className="desktop-grid">
        <DraftText {...props} name="host" label={t("host")} hint={t("hostHint")} />
        <DraftText {...props} name="parcelPort" label={t("parcelPort")} numeric />
        <DraftText {...props} name="proxyPort" label={t("proxyPort")} numeric />
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
          <DraftText {...props} name="parcelHttpsPort" label={t("parcelHttpsPort")} numeric />
        </div>
      ) : null}
    </fieldset>
  );
}

export function WindowFieldset({ draft, set, tray }: SectionProps & { tray?: TrayStatus }) {
  const t = useT(desktopDict);
  const noTray = tray?.available === false;
  return (
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
        checked={draft.closeToTray && !noTray}
        disabled={noTray}
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
        hint={noTray ? t("startMinimizedNoTray") : undefined}
        onChange={(v) => set({ startMinimized: v })}
      />
    </fieldset>
  );
}

export function CoreFieldset(props: SectionProps) {
  const t = useT(desktopDict);
  const { draft, set } = props;
  return (
    <fieldset>
      <legend>{t("groupCore")}</legend>
      <div className="desktop-grid">
        <DraftText
          {...props}
          name="coreBinary"
          label={t("coreBinary")}
          hint={t("coreBinaryHint")}
          placeholder="/usr/local/bin/mihomo"
        />
        <Field name="coreServiceMode" label={t("coreServiceMode")}>
          {(p) => (
            <select
              {...p}
              value={draft.coreServiceMode}
              onChange={(e) => set({ coreServiceMode: e.target.value as Draft["coreServiceMode"] })}
            >
              <option value="process">{t("modeProcess")}</option>
              <option value="systemd">{t("modeSystemd")}</option>
            </select>
          )}
        </Field>
        {draft.coreServiceMode === "systemd" ? (
          <DraftText {...props} name="coreUnit" label={t("coreUnit")} />
        ) : null}
      </div>
    </fieldset>
  );
}
