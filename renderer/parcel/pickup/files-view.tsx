import { useState, type MouseEvent } from "react";
import { formatBytes } from "../../shared/format.js";
import { api } from "../api.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import type { RecipientView as PickupView } from "../../../server/contract/parcel-views.js";
import { CopyButton } from "../ui/copy-button.js";
import { Countdown } from "../ui/countdown.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { pickupDict } from "./i18n.js";

/** Text files up to this size can be read on the page (a text sent from the Text tab is one). */
export const TEXT_INLINE_MAX = 1024 * 1024;

export function isReadableText(file: { name: string; size: number }): boolean {
  return /\.txt$/i.test(file.name) && file.size <= TEXT_INLINE_MAX;
}

type Shown =
  { state: "loading" } | { state: "shown"; text: string } | { state: "error"; error: unknown };

/** The text of a file, shown in place with a copy button. */
function TextBox({ name, shown, onHide }: { name: string; shown: Shown; onHide(): void }) {
  const t = useT(pickupDict);
  const describe = useErrorText();
  if (shown.state === "loading")
    return (
      <p className="muted small" role="status">
        {t("textLoading")}
      </p>
    );
  if (shown.state === "error") return <Notice kind="error">{describe(shown.error)}</Notice>;
  return (
    <figure className="pickup-text">
      <figcaption className="pickup-text-head">
        <span className="muted small">{t("textUsed")}</span>
        <span className="pickup-text-actions">
          <CopyButton text={shown.text} label={t("copyText")} className="primary" />
          <button type="button" className="small" onClick={onHide}>
            {t("hideText")}
          </button>
        </span>
      </figcaption>
      <pre className="pickup-text-body" tabIndex={0} aria-label={t("textOf", { name })}>
        {shown.text}
      </pre>
    </figure>
  );
}

/** The texts shown in place, by file id, and how to show or hide one. */
function useShownTexts(onReadText: (fileId: string) => Promise<string>) {
  const [texts, setTexts] = useState<Record<string, Shown>>({});
  const show = (id: string) => {
    setTexts((m) => ({ ...m, [id]: { state: "loading" } }));
    onReadText(id).then(
      (text) => setTexts((m) => ({ ...m, [id]: { state: "shown", text } })),
      (error: unknown) => setTexts((m) => ({ ...m, [id]: { state: "error", error } })),
    );
  };
  const hide = (id: string) =>
    setTexts((m) => {
      const next = { ...m };
      delete next[id];
      return next;
    });
  return { texts, show, hide };
}

/** How many files, how big, how many downloads are left and when the parcel ends. */
function PickupSummary({
  view,
  ended,
  finished,
}: {
  view: PickupView;
  ended: boolean;
  finished: boolean;
}) {
  const t = useT(pickupDict);
  const size = view.files.reduce((sum, f) => sum + f.size, 0);
  const left = ended ? 0 : view.downloads_left;
  return (
    <div className="pickup-summary card">
      <strong className="pickup-count">
        {t("summary", { n: view.files.length, size: formatBytes(size) })}
      </strong>
      <dl className="pickup-facts">
        <div>
          <dt>{t("downloadsLeft")}</dt>
          <dd data-testid="downloads-left">{finished ? 0 : ended ? "—" : left}</dd>
        </div>
        <div>
          <dt>{t(finished ? "status" : "expires")}</dt>
          <dd>{finished ? t("doneFact") : <Countdown until={view.expires_at} />}</dd>
        </div>
      </dl>
    </div>
  );
}

/** One file: its name and size, Show text for a short text file, its download link. */
function FileRow({
  file,
  left,
  shown,
  onShow,
  onHide,
  onDownload,
}: {
  file: PickupView["files"][number];
  left: number;
  shown: Shown | undefined;
  onShow(): void;
  onHide(): void;
  onDownload(e: MouseEvent<HTMLAnchorElement>): void;
}) {
  const t = useT(pickupDict);
  return (
    <li className={`file-row${shown ? " file-row-open" : ""}`}>
      <span className="pickup-file">
        <span className="file-name" title={file.name}>
          {file.name}
        </span>
        <span className="file-size muted small">{formatBytes(file.size)}</span>
      </span>
      {left > 0 && isReadableText(file) && !shown ? (
        <button
          type="button"
          className="show-text"
          aria-label={t("showTextName", { name: file.name })}
          onClick={onShow}
        >
          <span aria-hidden="true">{t("showText")}</span>
        </button>
      ) : null}
      {left > 0 ? (
        <a
          className="button download"
          href={api.url("GET /pickup/files/:file/download", { params: { file: file.id } })}
          download
          aria-label={t("downloadName", { name: file.name })}
          onClick={onDownload}
        >
          ↓ <span aria-hidden="true">{t("download")}</span>
        </a>
      ) : null}
      {shown ? <TextBox name={file.name} shown={shown} onHide={onHide} /> : null}
    </li>
  );
}

/**
 * The opened parcel: its size, downloads left and expiry, a download link per file and one for
 * the ZIP of all files while downloads remain.
 */
export function FilesView({
  view,
  ended,
  finished,
  onDownload,
  onReadText,
  onOther,
}: {
  view: PickupView;
  /** Set when the parcel ended while on screen: the list stays, the links go. */
  ended: boolean;
  /** It ended because this page used its last download: shown as done, not as a failure. */
  finished: boolean;
  onDownload(e: MouseEvent<HTMLAnchorElement>): void;
  /** Downloads a text file's bytes to show them (counts one download). */
  onReadText(fileId: string): Promise<string>;
  onOther(): void;
}) {
  const t = useT(pickupDict);
  const lang = useApp((s) => s.lang);
  const { texts, show, hide } = useShownTexts(onReadText);
  const readable = view.files.some(isReadableText);
  const left = ended ? 0 : view.downloads_left;
  return (
    <div className="pickup-files">
      <PickupSummary view={view} ended={ended} finished={finished} />
      {left <= 0 && !ended ? <Notice kind="warn">{t("noneLeft")}</Notice> : null}
      {left > 0 && view.files.length > 1 && left < view.files.length ? (
        <Notice kind="warn">{t("fewerThanFiles", { n: left })}</Notice>
      ) : null}
      <ul className="file-list pickup-list" aria-label={t("files")}>
        {view.files.map((f) => (
          <FileRow
            key={f.id}
            file={f}
            left={left}
            shown={texts[f.id]}
            onShow={() => show(f.id)}
            onHide={() => hide(f.id)}
            onDownload={onDownload}
          />
        ))}
      </ul>
      {view.files.length > 1 || left > 0 ? (
        <p className="muted small">
          {t("countsHint")}
          {/* Chinese sentences follow one another without a space. */}
          {readable && left > 0 ? `${lang === "zh-CN" ? "" : " "}${t("textCounts")}` : ""}
        </p>
      ) : null}
      <div className="pickup-bottom">
        {view.files.length > 1 && left > 0 ? (
          <a
            className="button primary-button big wide"
            href={api.url("GET /pickup/archive", {
              query: { lang, utc_offset: String(-new Date().getTimezoneOffset()) },
            })}
            download
            onClick={onDownload}
          >
            ↓ {t("downloadAll")}
          </a>
        ) : null}
        <button type="button" className="linkish other-code" onClick={onOther}>
          {t("otherCode")}
        </button>
      </div>
    </div>
  );
}
