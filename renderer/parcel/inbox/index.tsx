import { useEffect, useId } from "react";
import { formatBytes, formatDuration } from "../../shared/format.js";
import { sentenceGap } from "../../shared/lang.js";
import type { AreaProps } from "../app.js";
import { useT } from "../i18n.js";
import { normalizeInput } from "../pickup/code.js";
import "../pickup/pickup.css";
import { navigate } from "../route.js";
import type { Upload } from "../send/send-types.js";
import { useApp } from "../store.js";
import { useNow } from "../ui/countdown.js";
import { Notice } from "../ui/notice.js";
import { FileProgress } from "../ui/progress.js";
import { CodeForm, PasswordForm, ProblemText } from "./forms.js";
import { inboxDict } from "./i18n.js";
import "./inbox.css";
import { useInbox } from "./store.js";

/** A button that opens the file chooser: photos and videos (the camera roll) or any files. */
function ChooseButton({
  label,
  accept,
  primary,
}: {
  label: string;
  accept?: string;
  primary?: boolean;
}) {
  const pick = useInbox((s) => s.pick);
  const id = useId();
  return (
    <label htmlFor={id} className={`button big wide choose-button${primary ? " primary" : ""}`}>
      {label}
      <input
        id={id}
        type="file"
        multiple
        accept={accept}
        className="sr-only"
        onChange={(e) => {
          pick(Array.from(e.target.files ?? []));
          // The same file can be chosen again after it was removed.
          e.target.value = "";
        }}
      />
    </label>
  );
}

function Choose() {
  const t = useT(inboxDict);
  const lang = useApp((s) => s.lang);
  const { grant, picked, remove, send, cancelledNone } = useInbox();
  const now = useNow(10_000);
  const total = picked.reduce((n, p) => n + p.file.size, 0);
  return (
    <div className="inbox-choose">
      {grant ? (
        <p className="muted">
          {t("lead", { name: grant.name })}
          {sentenceGap(lang)}
          <span className="inbox-time">
            {t("openFor", { time: formatDuration(grant.closes_at - now, lang) })}
          </span>
        </p>
      ) : null}
      {cancelledNone && grant ? (
        <Notice kind="info">{t("cancelledNone", { name: grant.name })}</Notice>
      ) : null}
      <div className="inbox-buttons">
        <ChooseButton label={t("choosePhotos")} accept="image/*,video/*" primary />
        <ChooseButton label={t("chooseFiles")} />
      </div>
      <section className="card inbox-chosen" aria-label={t("chosen")}>
        {picked.length === 0 ? (
          <p className="muted">{t("nothingChosen")}</p>
        ) : (
          <>
            <p className="inbox-summary">
              {t("summary", { n: picked.length, size: formatBytes(total) })}
            </p>
            <ul className="inbox-list" aria-label={t("files")}>
              {picked.map((p) => (
                <li key={p.key} className="inbox-row">
                  <span className="file-name ellipsis" title={p.name}>
                    {p.name}
                  </span>
                  <span className="muted small">{formatBytes(p.file.size)}</span>
                  <button type="button" className="small" onClick={() => remove(p.key)}>
                    {t("remove")}
                    <span className="sr-only"> {p.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <button
        type="button"
        className="primary big wide"
        disabled={picked.length === 0}
        onClick={() => void send()}
      >
        {t("send", { n: picked.length })}
      </button>
    </div>
  );
}

function Row({ r }: { r: Upload }) {
  const t = useT(inboxDict);
  const stopFile = useInbox((s) => s.stopFile);
  const percent = Math.floor((r.size ? Math.max(r.stored, r.loaded) / r.size : 0) * 100);
  const status =
    r.state === "done"
      ? t("sent")
      : r.state === "failed"
        ? t("notSent")
        : r.state === "queued"
          ? t("queued")
          : r.link === "lost"
            ? t("linkLost", { percent })
            : r.link === "offline"
              ? t("offline", { percent })
              : `${percent} %`;
  return (
    <li className={`inbox-row inbox-${r.state}`} data-state={r.state}>
      <div className="upload-line">
        <span className="file-name ellipsis" title={r.name}>
          {r.name}
        </span>
        <span className="muted small upload-status">
          {formatBytes(r.size)} · {status}
        </span>
        {r.state === "done" || !r.fileId ? null : (
          <button type="button" className="small" onClick={() => void stopFile(r.key)}>
            {r.state === "queued" ? t("remove") : t("stop")}
            <span className="sr-only"> {r.name}</span>
          </button>
        )}
      </div>
      <FileProgress name={r.name} loaded={r.loaded} size={r.size} state={r.state} />
    </li>
  );
}

function Sending() {
  const t = useT(inboxDict);
  const { rows, problem, retry, cancel } = useInbox();
  const failed = rows.some((r) => r.state === "failed") || problem !== null;
  return (
    <section className="card inbox-sending" aria-label={t("sending")}>
      <h2>{t("sending")}</h2>
      <ul className="inbox-list" aria-label={t("files")}>
        {rows.map((r) => (
          <Row key={r.key} r={r} />
        ))}
      </ul>
      {failed ? (
        <button type="button" className="primary big wide" onClick={() => void retry()}>
          {t("tryAgain")}
        </button>
      ) : (
        <p className="muted small">
          {t("stayHint")} {t("cancelHint")}
        </p>
      )}
      <button type="button" className="big wide" onClick={() => void cancel()}>
        {t("cancel")}
      </button>
    </section>
  );
}

function Delivered() {
  const t = useT(inboxDict);
  const { grant, delivered, dropped, rows, sendMore } = useInbox();
  return (
    <section className="card inbox-delivered" aria-labelledby="inbox-delivered">
      <p className="inbox-check" aria-hidden="true">
        ✓
      </p>
      <h2 id="inbox-delivered">{t("delivered")}</h2>
      <p>{t("deliveredLead", { n: delivered, name: grant?.name ?? "" })}</p>
      {dropped > 0 ? (
        <p className="muted">{t("droppedNote", { n: dropped, name: grant?.name ?? "" })}</p>
      ) : null}
      <ul className="inbox-list inbox-done-list" aria-label={t("files")}>
        {rows.map((r) => (
          <li key={r.key} className="inbox-row">
            <span className="file-name ellipsis">{r.name}</span>
            <span className="muted small">{formatBytes(r.size)}</span>
          </li>
        ))}
      </ul>
      <button type="button" className="primary big wide" onClick={sendMore}>
        {t("sendMore")}
      </button>
    </section>
  );
}

/**
 * `#/inbox/<code>`: a phone sends photos or files to the computer whose QR code it scanned:
 * the inbox opens by the code in the link (a password when one is set), files are chosen,
 * sent with per-file progress (resumed after a dropped connection) and delivered.
 */
export default function InboxScreen({ rest }: AreaProps) {
  const t = useT(inboxDict);
  const { phase, grant, problem, busy, blockedUntil, open, otherCode } = useInbox();
  const fromLink = normalizeInput(rest);
  useEffect(() => {
    if (fromLink) void useInbox.getState().open(fromLink);
    else useInbox.setState({ phase: "code" });
  }, [fromLink]);
  return (
    <div className="pickup-screen inbox-screen" data-phase={phase}>
      <h1>{grant ? t("heading", { name: grant.name }) : t("headingPlain")}</h1>
      <div aria-live="polite">
        <ProblemText problem={problem} counted={phase === "code" || phase === "password"} />
      </div>
      {phase === "opening" ? (
        <p className="muted" role="status">
          {t("opening")}
        </p>
      ) : phase === "code" ? (
        <CodeForm
          initial={fromLink}
          busy={busy}
          blockedUntil={blockedUntil}
          onSubmit={(code) => {
            if (code !== fromLink) navigate(`inbox/${code}`);
            else void open(code);
          }}
        />
      ) : phase === "password" ? (
        <PasswordForm
          busy={busy}
          blockedUntil={blockedUntil}
          onSubmit={(password) => void open(normalizeInput(fromLink), password)}
          onOther={() => {
            otherCode();
            navigate("inbox");
          }}
        />
      ) : phase === "choose" ? (
        <Choose />
      ) : phase === "sending" ? (
        <Sending />
      ) : (
        <Delivered />
      )}
    </div>
  );
}
