import { useId, useState } from "react";
import type { InboxDesktopView } from "../../../preload/contract.js";
import { INBOX_DEFAULT_MINUTES } from "../../../server/contract/inbox-limits.js";
import { formatBytes, formatDateTime, formatDuration } from "../../shared/format.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { CopyButton } from "../ui/copy-button.js";
import { useNow } from "../ui/countdown.js";
import { entryLabel } from "../ui/entry-label.js";
import { uiDict } from "../ui/i18n.js";
import { Notice } from "../ui/notice.js";
import { QrCode } from "../ui/qr-code.js";
import { desktopInboxDict } from "./inbox-i18n.js";
import { desktopApi, useDesktopLoad } from "./use-desktop.js";

type Opened = Extract<InboxDesktopView["inbox"], { open: true }>;
type Delivery = InboxDesktopView["deliveries"][number];

/** The durations offered; the default one (INBOX_DEFAULT_MINUTES) among them. */
const DURATIONS = [15, 60, 480, 1440] as const;
const LABEL = { 15: "d15", 60: "d60", 480: "d480", 1440: "d1440" } as const;

/** Runs a bridge call, then reloads; a refusal is said in one sentence. */
function useRun(reload: () => void) {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const run = (work: () => Promise<unknown>) => {
    setBusy(true);
    setFailed(false);
    work()
      .catch(() => setFailed(true))
      .finally(() => {
        setBusy(false);
        reload();
      });
  };
  return { busy, failed, run };
}

function OpenInbox({ inbox, reload }: { inbox: Opened; reload(): void }) {
  const t = useT(desktopInboxDict);
  const ui = useT(uiDict);
  const lang = useApp((s) => s.lang);
  const now = useNow(1000);
  const selectId = useId();
  const { busy, failed, run } = useRun(reload);
  // A phone cannot open a loopback address: the first LAN address is the QR code's default.
  const lan = inbox.urls.find((u) => !/\/\/(127\.|localhost|\[::1\])/.test(u.url));
  const [label, setLabel] = useState((lan ?? inbox.urls[0])?.label ?? "");
  const entry = inbox.urls.find((u) => u.label === label) ?? lan ?? inbox.urls[0];
  const url = entry?.url ?? inbox.url;
  return (
    <div className="desktop-inbox-open">
      <div className="desktop-inbox-qr">
        <QrCode text={url} size={200} />
      </div>
      <div className="desktop-inbox-facts">
        <div className="share-caption">{t("code")}</div>
        <output className="share-code" aria-label={t("code")} translate="no">
          {inbox.code}
        </output>
        <p>
          <strong>{t("closesIn", { time: formatDuration(inbox.closes_at - now, lang) })}</strong>{" "}
          <span className="muted">{t(inbox.has_password ? "withPassword" : "noPassword")}</span>
        </p>
        {inbox.urls.length > 1 ? (
          <p>
            <label htmlFor={selectId}>{t("via")}</label>{" "}
            <select id={selectId} value={entry?.label} onChange={(e) => setLabel(e.target.value)}>
              {inbox.urls.map((u) => (
                <option key={u.label} value={u.label}>
                  {entryLabel(u, ui)}
                </option>
              ))}
            </select>
          </p>
        ) : null}
        <p className="mono desktop-inbox-url" translate="no">
          {url}
        </p>
        <div className="button-row">
          <CopyButton text={url} label={t("copyLink")} />
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              run(() =>
                desktopApi().inbox.open(Math.max(1, Math.ceil((inbox.closes_at - now) / 60)), null),
              )
            }
          >
            {t("reopen")}
          </button>
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => run(() => desktopApi().inbox.close())}
          >
            {t("close")}
          </button>
        </div>
        {failed ? <Notice kind="error">{t("failedAction")}</Notice> : null}
      </div>
    </div>
  );
}

function OpenForm({ reload }: { reload(): void }) {
  const t = useT(desktopInboxDict);
  const [minutes, setMinutes] = useState<number>(INBOX_DEFAULT_MINUTES);
  const [password, setPassword] = useState("");
  const durationId = useId();
  const passwordId = useId();
  const { busy, failed, run } = useRun(reload);
  return (
    <form
      className="desktop-inbox-form"
      onSubmit={(e) => {
        e.preventDefault();
        run(() => desktopApi().inbox.open(minutes, password || null));
      }}
    >
      <p className="muted">{t("closed")}</p>
      <label htmlFor={durationId}>{t("duration")}</label>
      <select id={durationId} value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
        {DURATIONS.map((m) => (
          <option key={m} value={m}>
            {t(LABEL[m])}
          </option>
        ))}
      </select>
      <label htmlFor={passwordId}>{t("password")}</label>
      <input
        id={passwordId}
        type="password"
        autoComplete="new-password"
        maxLength={1024}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <span className="muted small">{t("passwordHint")}</span>
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy}>
          {t("open")}
        </button>
      </div>
      {failed ? <Notice kind="error">{t("failedAction")}</Notice> : null}
    </form>
  );
}

function DeliveryRow({ d }: { d: Delivery }) {
  const t = useT(desktopInboxDict);
  const lang = useApp((s) => s.lang);
  return (
    <li className="desktop-delivery card" aria-label={d.files.map((f) => f.name).join(", ")}>
      <div className="desktop-delivery-head">
        <strong>{formatDateTime(d.receivedAt * 1000, lang)}</strong>
        <span className="mono">{t("from", { from: d.from })}</span>
        <span className={`badge desktop-delivery-${d.status}`}>
          {d.status === "failed" ? t("failed") : t(d.status)}
        </span>
      </div>
      <ul className="desktop-delivery-files">
        {d.files.map((f, i) => (
          <li key={`${i}:${f.name}`}>
            <span className="ellipsis" title={f.name}>
              {f.name}
            </span>
            <span className="muted small">{formatBytes(f.size)}</span>
          </li>
        ))}
      </ul>
      {d.status === "saved" ? (
        <button
          type="button"
          className="small"
          onClick={() => void desktopApi().inbox.showInFolder(d.id)}
        >
          {t("showInFolder")}
        </button>
      ) : null}
    </li>
  );
}

/**
 * The inbox on the Desktop screen: open it (for how long, with a password or none), its QR
 * code and code in large type with the time left, the folder received files go to, and the
 * deliveries with "Show in folder". Read again every few seconds, so a delivery shows at once.
 */
export function InboxPanel() {
  const t = useT(desktopInboxDict);
  const loaded = useDesktopLoad<InboxDesktopView>((api) => api.inbox.view(), 3000);
  const view = loaded.data;
  return (
    <section className="card desktop-section" aria-labelledby="desktop-inbox">
      <h2 id="desktop-inbox">{t("title")}</h2>
      <p className="muted">{t("lead")}</p>
      {view && !view.available ? <Notice kind="info">{t("unavailable")}</Notice> : null}
      {view?.available && view.inbox.open ? (
        <OpenInbox inbox={view.inbox} reload={loaded.reload} />
      ) : null}
      {view?.available && !view.inbox.open ? <OpenForm reload={loaded.reload} /> : null}
      {view ? (
        <p className="desktop-inbox-folder">
          {t("folder")}{" "}
          <span className="mono" translate="no">
            {view.folder}
          </span>{" "}
          <button
            type="button"
            className="small"
            onClick={() => void desktopApi().inbox.chooseFolder().then(loaded.reload)}
          >
            {t("chooseFolder")}
          </button>
        </p>
      ) : null}
      <h3>{t("deliveries")}</h3>
      {view && view.deliveries.length === 0 ? <p className="muted">{t("noDeliveries")}</p> : null}
      <ul className="desktop-deliveries" aria-label={t("deliveries")}>
        {view?.deliveries.map((d) => (
          <DeliveryRow key={d.id} d={d} />
        ))}
      </ul>
    </section>
  );
}
