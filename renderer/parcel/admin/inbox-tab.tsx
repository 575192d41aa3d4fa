import { useEffect, useId, useState } from "react";
import type { InboxItem, InboxView } from "../../../server/contract/parcel-inbox.js";
import { INBOX_DEFAULT_MINUTES } from "../../../server/contract/inbox-limits.js";
import { formatBytes, formatDuration } from "../../shared/format.js";
import { parcelApi } from "../api-full.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { CopyButton } from "../ui/copy-button.js";
import { useNow } from "../ui/countdown.js";
import { entryLabel } from "../ui/entry-label.js";
import { uiDict } from "../ui/i18n.js";
import { QrCode } from "../ui/qr-code.js";
import { adminInboxDict } from "./inbox-i18n.js";
import { adminApi } from "./session.js";
import { Alert, Card, Field, StateBadge, formatTime, useAction, useLoad } from "./ui.js";

const REFRESH_MS = 10_000;
type Opened = Extract<InboxView, { open: true }>;

/** Copy the link; reopen for as long as is left (a fresh code); close. */
function InboxButtons({
  view,
  url,
  now,
  onChange,
}: {
  view: Opened;
  url: string;
  now: number;
  onChange(): void;
}) {
  const t = useT(adminInboxDict);
  const action = useAction();
  return (
    <>
      <div className="button-row">
        <CopyButton text={url} label={t("copyLink")} />
        <button
          type="button"
          disabled={action.busy}
          title={t("reopenHint")}
          onClick={() =>
            void action.run(async () => {
              await adminApi("POST /admin/inbox", {
                body: { minutes: Math.max(1, Math.ceil((view.closes_at - now) / 60)) },
              });
              onChange();
            })
          }
        >
          {t("reopen")}
        </button>
        <button
          type="button"
          className="danger"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              await adminApi("DELETE /admin/inbox");
              onChange();
            })
          }
        >
          {t("close")}
        </button>
      </div>
      <Alert text={action.error} />
    </>
  );
}

/** The open inbox: its code large, the QR code of the chosen address, the time left. */
function OpenInbox({ view, onChange }: { view: Opened; onChange(): void }) {
  const t = useT(adminInboxDict);
  const ui = useT(uiDict);
  const lang = useApp((s) => s.lang);
  const now = useNow(1000);
  const selectId = useId();
  const lan = view.urls.find((u) => !/\/\/(127\.|localhost|\[::1\])/.test(u.url));
  const [label, setLabel] = useState((lan ?? view.urls[0])?.label ?? "");
  const entry = view.urls.find((u) => u.label === label) ?? view.urls[0];
  const url = entry?.url ?? view.url;
  return (
    <div className="adm-inbox-open">
      <div className="share-code-row">
        <div>
          <div className="share-caption">{t("code")}</div>
          <output className="share-code" aria-label={t("code")} translate="no">
            {view.code}
          </output>
        </div>
        <p className="adm-inbox-facts">
          <strong>{t("closesIn", { time: formatDuration(view.closes_at - now, lang) })}</strong>
          <span className="muted">{t(view.has_password ? "withPassword" : "noPassword")}</span>
        </p>
      </div>
      <div className="share-body">
        <div className="share-qr">
          <QrCode text={url} />
        </div>
        <div className="share-link">
          {view.urls.length > 1 ? (
            <div className="share-field">
              <label htmlFor={selectId}>{t("via")}</label>
              <select id={selectId} value={entry?.label} onChange={(e) => setLabel(e.target.value)}>
                {view.urls.map((u) => (
                  <option key={u.label} value={u.label}>
                    {entryLabel(u, ui)}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          <div className="share-field">
            <span className="share-caption">{t("link")}</span>
            <a className="share-url mono" href={url} translate="no">
              {url}
            </a>
          </div>
          <InboxButtons view={view} url={url} now={now} onChange={onChange} />
        </div>
      </div>
    </div>
  );
}

function OpenForm({ onChange }: { onChange(): void }) {
  const t = useT(adminInboxDict);
  const [minutes, setMinutes] = useState(String(INBOX_DEFAULT_MINUTES));
  const [password, setPassword] = useState("");
  const action = useAction();
  const n = Number(minutes);
  const bad = !Number.isInteger(n) || n < 1 || n > 10080;
  return (
    <form
      className="adm-inbox-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (bad) return;
        void action.run(async () => {
          await adminApi("POST /admin/inbox", {
            body: { minutes: n, password: password || null },
          });
          onChange();
        });
      }}
    >
      <p className="muted">{t("closed")}</p>
      <Field label={t("minutes")} hint={t("minutesHint")} error={bad ? t("minutesBad") : ""}>
        {(control) => (
          <input
            {...control}
            type="number"
            min={1}
            max={10080}
            inputMode="numeric"
            value={minutes}
            onChange={(e) => setMinutes(e.target.value)}
          />
        )}
      </Field>
      <Field label={t("password")} hint={t("passwordHint")}>
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      <div className="button-row">
        <button type="submit" className="primary" disabled={bad || action.busy}>
          {t("open")}
        </button>
      </div>
      <Alert text={action.error} />
    </form>
  );
}

/** A file of a delivery, downloaded through the ordinary pickup routes with its code. */
async function download(code: string, fileId: string): Promise<void> {
  await parcelApi("POST /pickup/resolve", { body: { code } });
  const link = document.createElement("a");
  link.href = parcelApi.url("GET /pickup/files/:file/download", { params: { file: fileId } });
  link.download = "";
  document.body.append(link);
  link.click();
  link.remove();
}

function Delivery({ item }: { item: InboxItem }) {
  const t = useT(adminInboxDict);
  const lang = useApp((s) => s.lang);
  const action = useAction();
  const plain = item.code.replace(/-/g, "");
  return (
    <li className="adm-inbox-item card" aria-label={item.files.map((f) => f.name).join(", ")}>
      <div className="adm-inbox-item-head">
        <span>
          {t("receivedAt")} <strong>{formatTime(item.received_at, lang)}</strong>
        </span>
        <span>
          {t("from")} <strong className="mono">{item.from}</strong>
        </span>
        <span>
          {t("pickupCode")} <strong className="mono">{item.code}</strong>
        </span>
        <StateBadge state={item.state} />
        <span className="muted">{t("downloadsLeft", { n: item.downloads_left })}</span>
      </div>
      <ul className="adm-inbox-files">
        {item.files.map((f) => (
          <li key={f.id}>
            <span className="ellipsis" title={f.name}>
              {f.name}
            </span>
            <span className="muted small">{formatBytes(f.size)}</span>
            <button
              type="button"
              className="small"
              aria-label={t("downloadName", { name: f.name })}
              disabled={action.busy || item.state !== "published"}
              onClick={() => void action.run(() => download(item.code, f.id))}
            >
              {t("download")}
            </button>
          </li>
        ))}
      </ul>
      <a className="small" href={`#/pickup/${plain}`}>
        {t("openPickup")}
      </a>
      <Alert text={action.error} />
    </li>
  );
}

/** The Inbox tab: open, reopen and close the inbox; its QR code; the deliveries. */
export function InboxTab() {
  const t = useT(adminInboxDict);
  const [tick, setTick] = useState(0);
  const inbox = useLoad(`inbox:${tick}`, (signal) => adminApi("GET /admin/inbox", { signal }));
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") setTick((n) => n + 1);
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const view = inbox.data;
  const changed = () => setTick((n) => n + 1);
  return (
    <>
      <Card title={t("title")}>
        <p className="muted">{t("lead")}</p>
        <Alert text={inbox.error} />
        {view?.open ? <OpenInbox view={view} onChange={changed} /> : null}
        {view && !view.open ? <OpenForm onChange={changed} /> : null}
      </Card>
      <Card title={t("deliveries")}>
        {view && view.items.length === 0 ? <p className="muted">{t("noDeliveries")}</p> : null}
        <ul className="adm-inbox-items" aria-label={t("deliveries")}>
          {view?.items.map((item) => (
            <Delivery key={item.id} item={item} />
          ))}
        </ul>
      </Card>
    </>
  );
}
