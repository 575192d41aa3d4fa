import "./ui.css";
import { useId, useState } from "react";
import { keep, stored } from "../../shared/storage.js";
import { useT } from "../i18n.js";
import type { Share, ShareUrl } from "../../../server/contract/parcel-views.js";
import { CopyButton } from "./copy-button.js";
import { entryLabel } from "./entry-label.js";
import { Countdown } from "./countdown.js";
import { uiDict } from "./i18n.js";
import { QrCode } from "./qr-code.js";

const CHOICE_KEY = "gatehouse.parcel.shareEntry";

function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host.startsWith("127.") || host === "[::1]";
  } catch {
    return false;
  }
}

/**
 * The entry to show first: the one chosen last time, else the one the page came through,
 * unless that is this computer's loopback address (useless on a phone) and a LAN one exists.
 */
export function defaultEntry(share: Pick<Share, "url" | "urls">): ShareUrl {
  const urls = share.urls.length > 0 ? share.urls : [{ label: share.url, url: share.url }];
  const remembered = stored(CHOICE_KEY);
  const byLabel = urls.find((u) => u.label === remembered);
  if (byLabel) return byLabel;
  const current = urls.find((u) => u.url === share.url) ?? urls[0];
  if (isLoopback(current.url)) return urls.find((u) => !isLoopback(u.url)) ?? current;
  return current;
}

/**
 * A share as the owner hands it out: the pickup code large (grouped as the service gives it),
 * the link of the chosen entry address with its QR code, copy buttons, expiry and downloads
 * left. Without a code (a repeated publish) it shows the pickup page link only.
 */
export function SharePanel({
  share,
  again = false,
}: {
  share: Share;
  /** The owner's device holds the parcel's token: My parcels can show the code again. */
  again?: boolean;
}) {
  const t = useT(uiDict);
  const selectId = useId();
  const urls = share.urls.length > 0 ? share.urls : [{ label: share.url, url: share.url }];
  const [label, setLabel] = useState(() => defaultEntry(share).label);
  const entry = urls.find((u) => u.label === label) ?? urls[0];
  return (
    <div className="share">
      {share.code ? (
        <div className="share-code-row">
          <div>
            <div className="share-caption">{t("pickupCode")}</div>
            <output className="share-code" aria-label={t("pickupCode")} translate="no">
              {share.code}
            </output>
          </div>
          <CopyButton text={share.code} label={t("copyCode")} />
        </div>
      ) : null}
      <div className="share-body">
        <div className="share-qr">
          <QrCode text={entry.url} />
        </div>
        <div className="share-link">
          {urls.length > 1 ? (
            <div className="share-field">
              <label htmlFor={selectId}>{t("shareVia")}</label>
              <select
                id={selectId}
                value={entry.label}
                onChange={(e) => {
                  setLabel(e.target.value);
                  keep(CHOICE_KEY, e.target.value);
                }}
              >
                {urls.map((u) => (
                  <option key={u.label} value={u.label}>
                    {entryLabel(u, t)}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          <div className="share-field">
            <span className="share-caption">{t("link")}</span>
            <a className="share-url mono" href={entry.url} translate="no">
              {entry.url}
            </a>
          </div>
          <div className="button-row">
            <CopyButton text={entry.url} label={t("copyLink")} />
          </div>
          <p className="share-facts">
            <Countdown until={share.expires_at} />
            <span aria-hidden="true"> · </span>
            <span>{t("downloadsLeft", { n: share.downloads_left })}</span>
          </p>
          {share.code ? <p className="muted small">{t(again ? "codeAgain" : "codeOnce")}</p> : null}
        </div>
      </div>
    </div>
  );
}
