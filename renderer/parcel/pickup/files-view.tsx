import type { MouseEvent } from "react";
import { formatBytes } from "../../shared/format.js";
import { BASE } from "../api.js";
import { useT } from "../i18n.js";
import type { PickupView } from "../types.js";
import { Countdown } from "../ui/countdown.js";
import { Notice } from "../ui/notice.js";
import { pickupDict } from "./i18n.js";

/**
 * The opened parcel: its size, downloads left and expiry, a download link per file and one for
 * the ZIP of all files while downloads remain.
 */
export function FilesView({
  view,
  ended,
  onDownload,
  onOther,
}: {
  view: PickupView;
  /** Set when the parcel ended while on screen: the list stays, the links go. */
  ended: boolean;
  onDownload(e: MouseEvent<HTMLAnchorElement>): void;
  onOther(): void;
}) {
  const t = useT(pickupDict);
  const size = view.files.reduce((sum, f) => sum + f.size, 0);
  const left = ended ? 0 : view.downloads_left;
  return (
    <div className="pickup-files">
      <div className="pickup-summary card">
        <strong className="pickup-count">
          {view.files.length === 1
            ? t("summaryOne", { size: formatBytes(size) })
            : t("summary", { n: view.files.length, size: formatBytes(size) })}
        </strong>
        <dl className="pickup-facts">
          <div>
            <dt>{t("downloadsLeft")}</dt>
            <dd data-testid="downloads-left">{ended ? "—" : left}</dd>
          </div>
          <div>
            <dt>{t("expires")}</dt>
            <dd>
              <Countdown until={view.expires_at} />
            </dd>
          </div>
        </dl>
      </div>
      {left <= 0 && !ended ? <Notice kind="warn">{t("noneLeft")}</Notice> : null}
      {left > 0 && view.files.length > 1 && left < view.files.length ? (
        <Notice kind="warn">{t("fewerThanFiles", { n: left })}</Notice>
      ) : null}
      <ul className="file-list pickup-list" aria-label={t("files")}>
        {view.files.map((f) => (
          <li key={f.id} className="file-row">
            <span className="pickup-file">
              <span className="file-name" title={f.name}>
                {f.name}
              </span>
              <span className="file-size muted small">{formatBytes(f.size)}</span>
            </span>
            {left > 0 ? (
              <a
                className="button download"
                href={`${BASE}/pickup/files/${encodeURIComponent(f.id)}/download`}
                download
                aria-label={t("downloadName", { name: f.name })}
                onClick={onDownload}
              >
                ↓ <span aria-hidden="true">{t("download")}</span>
              </a>
            ) : null}
          </li>
        ))}
      </ul>
      {view.files.length > 1 || left > 0 ? <p className="muted small">{t("countsHint")}</p> : null}
      <div className="pickup-bottom">
        {view.files.length > 1 && left > 0 ? (
          <a
            className="button primary-button big wide"
            href={`${BASE}/pickup/archive`}
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
