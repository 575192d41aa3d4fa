import { useT } from "../i18n.js";
import { Notice, RetryNotice } from "../ui/notice.js";
import { desktopDict } from "./i18n.js";
import type { Draft } from "./settings-draft.js";
import { EntriesFieldset } from "./settings-fields.js";
import {
  AppearanceFieldset,
  CoreFieldset,
  NetworkFieldset,
  WindowFieldset,
} from "./settings-sections.js";
import { useDesktopLoad, type Loaded } from "./use-desktop.js";
import { useSettingsForm, type Outcome } from "./use-settings-form.js";

/** Until the settings are read: the failure with a retry, or a placeholder. */
function NotLoaded({ loaded }: { loaded: Loaded<unknown> }) {
  const t = useT(desktopDict);
  return loaded.error ? (
    <RetryNotice retry={t("retry")} onRetry={loaded.reload}>
      {t("loadFailed")}
    </RetryNotice>
  ) : (
    <p className="muted">…</p>
  );
}

/** The save button, how many values differ from the stored ones, and the last save's outcome. */
function SaveRow({ busy, changed, outcome }: { busy: boolean; changed: number; outcome: Outcome }) {
  const t = useT(desktopDict);
  return (
    <>
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
    </>
  );
}

/** The desktop settings; only what changed is sent, and the main side checks every field. */
export function SettingsForm() {
  const t = useT(desktopDict);
  const loaded = useDesktopLoad((api) => api.settings.get());
  const entries = useDesktopLoad((api) => api.entries.list(), 0, { afterSave: true });
  const info = useDesktopLoad((api) => api.app.info());
  const form = useSettingsForm(loaded);
  if (!form.ready) return <NotLoaded loaded={loaded} />;
  const { draft, errors, set } = form;
  const error = (name: keyof Draft): string | undefined => {
    const key = errors[name];
    return key ? t(key) : undefined;
  };
  const section = { draft, set, error };
  return (
    <form className="desktop-settings" onSubmit={form.submit} noValidate>
      <AppearanceFieldset {...section} />
      <NetworkFieldset {...section} />
      <EntriesFieldset
        view={entries.data}
        draft={draft}
        error={error("entries")}
        onChange={(p) => set(p)}
      />
      <WindowFieldset {...section} tray={info.data?.tray} />
      <CoreFieldset {...section} />
      <SaveRow busy={form.busy} changed={form.changed} outcome={form.outcome} />
    </form>
  );
}
