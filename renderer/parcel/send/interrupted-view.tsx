import { useRef } from "react";
import { formatBytes } from "../../shared/format.js";
import { useT } from "../i18n.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { HiddenFileInput } from "./file-input.js";
import { sendDict } from "./i18n.js";
import { LeaveOut } from "./leave-out-button.js";
import { useInterrupted } from "./interrupted.js";

/**
 * After a reload: the upload that was running, what of it is stored, and a way to go on (choose
 * the same files again) or to discard it.
 */
export function InterruptedView() {
  const t = useT(sendDict);
  const describe = useErrorText();
  const { upload, chosen, refused, error, busy, choose, discard, leaveOut } = useInterrupted();
  const input = useRef<HTMLInputElement>(null);
  if (!upload) return null;
  const left = upload.files.filter((f) => !f.done && !chosen[f.fileId]).length;
  return (
    <section className="card send-interrupted" aria-labelledby="send-interrupted-title">
      <header className="card-head">
        <h2 id="send-interrupted-title">{t("interruptedTitle")}</h2>
      </header>
      <Notice kind="warn">{t("interrupted")}</Notice>
      <ul className="file-list" aria-label={t("files")}>
        {upload.files.map((f) => (
          <li key={f.fileId} className="file-row" data-state={f.done ? "done" : "open"}>
            <span className="file-name ellipsis" title={f.name}>
              {f.name}
            </span>
            <span className="file-size">{formatBytes(f.size)}</span>
            <span className={`file-state small${f.done || chosen[f.fileId] ? " muted" : ""}`}>
              {f.done
                ? t("stored")
                : [
                    f.stored && f.size
                      ? t("storedPart", { percent: Math.floor((f.stored / f.size) * 100) })
                      : "",
                    chosen[f.fileId] ? t("chosen") : t("needed"),
                  ]
                    .filter(Boolean)
                    .join(" · ")}
            </span>
            {!f.done && upload.files.length > 1 ? (
              <LeaveOut name={f.name} disabled={busy} onLeave={() => void leaveOut(f.fileId)} />
            ) : null}
          </li>
        ))}
      </ul>
      <p className="muted small">{t("interruptedLeft", { n: left })}</p>
      {refused.map((name) => (
        <Notice key={name} kind="error">
          {t("notSameFile", { name })}
        </Notice>
      ))}
      <Notice kind="error">{error ? describe(error) : null}</Notice>
      <div className="button-row">
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => input.current?.click()}
        >
          {t("chooseSame")}
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => void discard()}>
          {t("discard")}
        </button>
      </div>
      <p className="muted small">{t("discardHint")}</p>
      <HiddenFileInput inputRef={input} onFiles={choose} />
    </section>
  );
}
