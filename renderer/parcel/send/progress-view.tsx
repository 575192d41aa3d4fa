import { useState } from "react";
import { ApiError } from "../api.js";
import { formatBytes, formatDuration, formatRate } from "../../shared/format.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { Countdown } from "../ui/countdown.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { FileProgress, ProgressBar } from "../ui/progress.js";
import { sendDict } from "./i18n.js";
import { LeaveOut } from "./leave-out-button.js";
import { useSend, type Upload } from "./store.js";

/** Leave one file out while uploading; the last one goes with Cancel upload instead. */
function RowLeaveOut({ u }: { u: Upload }) {
  const leaveOut = useSend((s) => s.leaveOut);
  return <LeaveOut name={u.name} leaving={u.leaving} onLeave={() => void leaveOut(u.key)} />;
}

function UploadRow({ u, canLeaveOut }: { u: Upload; canLeaveOut: boolean }) {
  const t = useT(sendDict);
  const lang = useApp((s) => s.lang);
  const describe = useErrorText();
  const retry = useSend((s) => s.retry);
  const fatal = u.error instanceof ApiError && (u.error.status === 409 || u.error.status === 404);
  // Until the service says how much it stored, what went out is the best guess; the bar and
  // the sentence agree, and neither ever shows less than the service confirmed.
  const percent = Math.floor((u.size ? Math.max(u.stored, u.loaded) / u.size : 0) * 100);
  const status =
    u.state === "uploading" && u.link === "lost"
      ? t("connectionLost", { percent })
      : u.state === "uploading" && u.link === "offline"
        ? t("offlineWait", { percent })
        : u.state === "queued"
          ? t("queued")
          : u.state === "done"
            ? t("done")
            : u.state === "failed"
              ? t("failed")
              : u.rate > 0
                ? t("speedLeft", {
                    speed: formatRate(u.rate),
                    left: formatDuration((u.size - u.loaded) / u.rate, lang),
                  })
                : `${Math.floor((u.size ? u.loaded / u.size : 0) * 100)} %`;
  return (
    <li className={`upload-row upload-${u.state}`} data-state={u.state}>
      <div className="upload-line">
        <span className="file-name ellipsis" title={u.name}>
          {u.name}
        </span>
        <span className="muted upload-status">
          {u.state === "uploading" ? `${formatBytes(u.loaded)} / ` : ""}
          {formatBytes(u.size)} · {status}
        </span>
      </div>
      <FileProgress name={u.name} loaded={u.loaded} size={u.size} state={u.state} />
      {canLeaveOut ? <RowLeaveOut u={u} /> : null}
      {u.state === "failed" ? (
        <Notice
          kind="error"
          action={
            fatal ? null : (
              <button type="button" className="small" onClick={() => retry(u.key)}>
                {t("retryOne")}
                <span className="sr-only"> {u.name}</span>
              </button>
            )
          }
        >
          {describe(u.error)}
        </Notice>
      ) : null}
    </li>
  );
}

/** What the progress view says about the uploads as a whole. */
function summarize(uploads: Upload[], error: unknown) {
  return {
    size: uploads.reduce((sum, u) => sum + u.size, 0),
    loaded: uploads.reduce((sum, u) => sum + (u.state === "done" ? u.size : u.loaded), 0),
    failed: uploads.filter((u) => u.state === "failed").length,
    lost: uploads.filter((u) => u.state === "uploading" && u.link !== "ok").length,
    allDone: uploads.every((u) => u.state === "done"),
    // A session that ended (timed out, revoked elsewhere) cannot take retries: start again.
    ended: [error, ...uploads.map((u) => u.error)].some(
      (e) => e instanceof ApiError && (e.status === 409 || e.status === 404),
    ),
  };
}

/** Bytes sent of all files, the speed and time left while nothing waits on the connection. */
function TotalProgress({
  size,
  loaded,
  allDone,
  lost,
}: {
  size: number;
  loaded: number;
  allDone: boolean;
  lost: number;
}) {
  const t = useT(sendDict);
  const lang = useApp((s) => s.lang);
  const totalRate = useSend((s) => s.totalRate);
  return (
    <>
      <div className="total-line">
        <strong>{t("total")}</strong>
        <span className="muted">
          {formatBytes(loaded)} / {formatBytes(size)}
          {totalRate > 0 && !allDone && lost === 0
            ? ` · ${t("speedLeft", {
                speed: formatRate(totalRate),
                left: formatDuration((size - loaded) / totalRate, lang),
              })}`
            : ""}
        </span>
      </div>
      <ProgressBar
        label={t("total")}
        value={size ? loaded / size : allDone ? 1 : 0}
        state={allDone ? "done" : "active"}
      />
    </>
  );
}

/** Cancel upload, asked once more before the session is revoked. */
function CancelUpload({ publishing }: { publishing: boolean }) {
  const t = useT(sendDict);
  const cancel = useSend((s) => s.cancel);
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <button
        type="button"
        className="danger"
        disabled={publishing}
        onClick={() => setConfirming(true)}
      >
        {t("cancel")}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={t("cancel")}>
      <span>{t("cancelConfirm")}</span>
      <button type="button" className="danger" onClick={() => void cancel()}>
        {t("cancel")}
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        {t("keepUploading")}
      </button>
    </span>
  );
}

/** Per-file and total progress while the files stream up; retry, cancel. */
export function ProgressView() {
  const t = useT(sendDict);
  const describe = useErrorText();
  const { uploads, phase, session, error, retry, publish, startOver } = useSend();
  const { size, loaded, failed, lost, allDone, ended } = summarize(uploads, error);
  const publishing = phase === "publishing";
  return (
    <section className="card send-progress" aria-labelledby="send-progress-title">
      <header className="card-head">
        <h2 id="send-progress-title">{publishing ? t("publishing") : t("uploading")}</h2>
        {session ? (
          <span className="muted small">
            {t("sessionEnds")} <Countdown until={session.expiresAt} verb="ends" />
          </span>
        ) : null}
      </header>
      <TotalProgress size={size} loaded={loaded} allDone={allDone} lost={lost} />
      <ul className="upload-list" aria-label={t("files")}>
        {uploads.map((u) => (
          <UploadRow
            key={u.key}
            u={u}
            canLeaveOut={uploads.length > 1 && !publishing && !ended && !allDone}
          />
        ))}
      </ul>
      {lost > 0 ? <Notice kind="warn">{t("linkLost", { n: lost })}</Notice> : null}
      <Notice kind="error">{error ? describe(error) : null}</Notice>
      {ended ? (
        <Notice
          kind="warn"
          action={
            <button type="button" className="primary" onClick={() => void startOver()}>
              {t("startOver")}
            </button>
          }
        >
          {t("sessionEnded")}
        </Notice>
      ) : null}
      {!allDone && failed === 0 ? <p className="muted small">{t("dontCloseHint")}</p> : null}
      <div className="button-row">
        {failed > 1 && !ended ? (
          <button type="button" className="primary" onClick={() => retry()}>
            {t("retryAll")}
          </button>
        ) : null}
        {allDone && error && !publishing ? (
          <button type="button" className="primary" onClick={() => void publish()}>
            {t("publishAgain")}
          </button>
        ) : null}
        <CancelUpload publishing={publishing} />
      </div>
    </section>
  );
}
